"""AgentBoard-format Weather files: each recognised kind gets a sandbox built to its recorded
answer and an expert that reaches it through the tools; an unrecognised question, or one whose
answer conflicts with another task's, stays an exception (no plan, no win).

The questions are made up here in AgentBoard's format (one JSON object a line)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coevo.envs.registry import make
from coevo.envs.weather.recognise import recognise
from tests.toolusage.agentboard_files import agentboard_row, play_expert, write_agentboard

#: (question, answer, current date, current location, the kind the loader should see)
CASES: list[tuple[str, Any, str, str, str | None]] = [
    (
        "I have a workshop in Springfield next month. How far is it from my current location? "
        "Please provide the distance in kilometers as a number.",
        1234.5678,
        "2023-03-01",
        "Denver",
        "distance_to",
    ),
    (
        "I'm planning a trip to the Misty Mountains. How does the elevation there compare to where I am "
        "now? Please give me the elevation difference in meters as a number.",
        2500.0,
        "2023-03-01",
        "Chicago",
        "elevation_vs_home",
    ),
    (
        "How much higher is the elevation in Denver compared to Boston? Please provide the answer as a number.",
        1000,
        "2023-03-01",
        "Boston",
        "elevation_vs_city",
    ),
    (
        "Which day had more rainfall, the 3rd of last month or the 9th of last month? "
        "Please provide the answer with '3rd' or '9th'.",
        "9th",
        "2023-05-20",
        "Phoenix",
        "rain_day_order",
    ),
    (
        "Which day had heavier rainfall, the 12th of last month or the 2nd of last month? "
        "Please provide the answer in the form of a date 'YYYY-MM-DD'.",
        "2023-04-02",
        "2023-05-20",
        "Phoenix",
        "rain_day_order",
    ),
    (
        "What is the total rainfall for the past 4 days? Please provide the answer in millimeters as a number.",
        12.3,
        "2023-07-10",
        "Phoenix",
        "window_total",
    ),
    (
        "What is the total snowfall expected in the next 5 days in Houston? Please provide the answer as a number.",
        3.21,
        "2023-07-10",
        "Miami",
        "window_total",
    ),
    (
        "Which city had a higher total rainfall over the past week: Miami or Phoenix? Please tell me the city name.",
        "Phoenix",
        "2023-07-10",
        "Miami",
        "window_compare",
    ),
    (
        "Which city is expected to have the least amount of snowfall in the next 3 days: Moscow or Sydney? "
        "Please tell me the city name.",
        "Moscow",
        "2023-01-10",
        "Moscow",
        "window_compare",
    ),
    (
        "What is the average temperature forecast for Lyon next week? Give a number in Celsius.",
        17.3,
        "2023-09-20",
        "Lyon",
        "window_mean",
    ),
    (
        "What is the average temperature in Rome on the 25th of this month? Please provide the answer as a number.",
        19.2,
        "2023-09-20",
        "Rome",
        "day_of_month",
    ),
    (
        "How many days of rain were recorded last week in your current city? Give a count.",
        3,
        "2023-03-20",
        "Chicago",
        "rainy_days",
    ),
    (
        "How many consecutive days of snow are expected starting from tomorrow in your current location? Give a count.",
        2,
        "2023-01-10",
        "Chicago",
        "wet_streak",
    ),
    (
        "How many days in the upcoming week are expected to have rain but no snow? Please provide the answer as a "
        "number.",
        4,
        "2023-01-08",
        "Minneapolis",
        "days_with",
    ),
    (
        "Will there be snowfall and rainfall on the same day next week? Reply Yes or No.",
        "Yes",
        "2023-01-08",
        "Boston",
        "days_with",
    ),
    (
        "How much more snowfall is expected in Chicago compared to Denver tomorrow? Please provide the answer as a "
        "number.",
        1.25,
        "2023-02-20",
        "Chicago",
        "snow_difference",
    ),
    (
        "What is the total snowfall in inches over the past month in Salt Lake City? Give a number.",
        12.5,
        "2023-01-15",
        "Salt Lake City",
        "window_total",
    ),
    (
        "Is the average temperature today higher than yesterday? Reply with 'Yes' or 'No'.",
        "Yes",
        "2023-05-15",
        "Pittsburgh",
        "today_vs_yesterday",
    ),
    (
        "How does today's average temperature compare to the average temperature on the same day five years ago? "
        "Answer 'warmer', 'colder' or 'same'.",
        "colder",
        "2023-07-10",
        "Phoenix",
        "today_vs_five_years_ago",
    ),
    (
        "Which city will have a higher temperature tomorrow, Denver or Miami? Please provide the answer with "
        "'Denver' or 'Miami'.",
        "Denver",
        "2023-07-10",
        "Denver",
        "warmer_city_tomorrow",
    ),
    (
        "What is the temperature variation between sunrise and sunset in Cairo tomorrow? Give a number.",
        11.8,
        "2023-07-01",
        "Cairo",
        "day_range_tomorrow",
    ),
    (
        "What is the current temperature difference in Oslo compared to Helsinki right now? Give a number.",
        -1.7,
        "2023-11-30",
        "Oslo",
        "two_cities_now",
    ),
    (
        "What is the temperature trend in Boston for the next three days? Answer 'Increasing', 'Decreasing' or "
        "'Stable'.",
        "Increasing",
        "2023-02-10",
        "Boston",
        "trend",
    ),
    (
        "What is the expected temperature range in Dallas for the upcoming weekend? Give [low, high] in Celsius.",
        [18.5, 30.25],
        "2023-07-05",
        "Dallas",
        "temperature_range",
    ),
    (
        "What is the temperature forecast for Vienna on the 12th of next month? Please provide the answer in Celsius "
        "as an array.",
        [3.1, 6.0, 8.8],
        "2023-11-10",
        "Berlin",
        "day_forecast",
    ),
    (
        "What is the highest temperature recorded in Seattle in the last week? Please provide the answer as a number.",
        21.5,
        "2023-02-28",
        "Seattle",
        "window_max",
    ),
    (
        "Do I need to bring an umbrella tomorrow? Reply Yes or No.",
        "Yes",
        "2023-05-10",
        "Phoenix",
        "rain_tomorrow",
    ),
    (
        "Among the 5th, 12th, and 19th of this month, which day has the lowest average temperature? Please provide "
        "the answer in the form of a date 'YYYY-MM-DD'.",
        "2023-03-19",
        "2023-03-15",
        "Houston",
        "extreme_of_days",
    ),
    (
        "I went to Chicago on a business trip on the 2nd of this month. How was the air quality level there that day?",
        "moderate",
        "2023-11-15",
        "Pittsburgh",
        "air_quality_on_a_day",
    ),
    (
        "Which city has the better air quality index in the past three days: Boston, Denver or Miami? Tell me the "
        "city name.",
        "Denver",
        "2023-12-01",
        "Boston",
        "best_air",
    ),
    (
        "What is the average temperature in Denver on Christmas Day? Please provide the answer as a number.",
        -3.4,
        "2023-12-20",
        "Denver",
        "day_of_month",
    ),
    (
        "Will there be any rainfall on the 3rd of next month? Reply Yes or No.",
        "Yes",
        "2023-07-15",
        "Phoenix",
        "days_with",
    ),
    (
        "How many days of light rain (less than 10mm) are expected next week in your current location? Give a count.",
        5,
        "2023-06-15",
        "Portland",
        "days_with",
    ),
    (
        "Will tomorrow be a rainy day with temperatures exceeding 30 degrees? Reply Yes or No.",
        "Yes",
        "2023-06-15",
        "Houston",
        "days_with_tomorrow",
    ),
    (
        "What is the total snowfall accumulation on days when the temperature drops below freezing in the last "
        "three days? Please provide the answer as a number.",
        0,
        "2023-01-20",
        "Chicago",
        "precipitation_on_days_with",
    ),
    ("Will it be windy tomorrow? Answer with 'Yes' or 'No'.", "No", "2023-07-10", "Miami", None),
]


def _write(path: Path, cases: list[tuple[str, Any, str, str, str | None]]) -> None:
    write_agentboard(
        path,
        (
            agentboard_row(goal, answer, "weather", init_config={"current_date": now, "current_location": home})
            for goal, answer, now, home, _ in cases
        ),
    )


@pytest.mark.parametrize(("goal", "kind"), [(c[0], c[4]) for c in CASES])
def test_the_loader_recognises_each_kind(goal: str, kind: str | None) -> None:
    found = recognise(goal)
    assert (found.kind if found else None) == kind


def test_the_expert_reaches_each_recorded_answer_through_the_tools(tmp_path: Path) -> None:
    _write(tmp_path / "weather.jsonl", CASES)
    env = make("weather", data_dir=str(tmp_path), train_tasks=5)
    for index, (goal, *_rest, kind) in enumerate(CASES):
        task_id = f"file-{index}"
        if kind is None:
            env.reset(task_id=task_id)
            assert env.expert_action() is None, goal  # not recognised: an exception, not a fake win
            continue
        _, last = play_expert(env, task_id)[-1]
        assert last.info.get("success") is True, goal
    # the distance came from get_distance, on places the loader set out for it
    distance_steps = [result.observation for _, result in play_expert(env, "file-0")]
    assert distance_steps[-2] == str(1234.5678)


def test_an_answer_the_sandbox_cannot_also_hold_stays_an_exception(tmp_path: Path) -> None:
    trip = CASES[0]
    second = (trip[0], 999.0, *trip[2:])  # the same trip, another distance: both cannot hold
    _write(tmp_path / "weather.jsonl", [trip, second])
    env = make("weather", data_dir=str(tmp_path), train_tasks=5)
    _, last = play_expert(env, "file-0")[-1]
    assert last.info.get("success") is True
    env.reset(task_id="file-1")
    assert env.expert_action() is None
    assert env.taskset.by_id["file-1"][1].kind == "distance_to"  # recognised, but not reachable
