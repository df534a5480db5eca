"""AgentBoard-format Weather files: each recognised kind gets a sandbox built to its recorded
answer and an expert that reaches it through the tools; an unrecognised question, or one whose
answer conflicts with another task's, stays an exception (no plan, no win).

The questions are made up here in AgentBoard's format (one JSON object a line)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
from geopy.distance import geodesic

from coevo.envs.registry import make
from coevo.envs.weather import exceptions
from coevo.envs.weather.pins import mean_values, significant
from coevo.envs.weather.recognise import SIGNIFICANT, named_day, point_day, question_days, recognise, window
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
    # kinds of run 9: statistics over the days meeting a condition, which days, extremes, totals
    (
        "What is the average temperature during days with rainfall over the past 10 days? "
        "Please provide the answer as a number.",
        16.933333333333334,
        "2024-03-10",
        "Seattle",
        "stat_on_days_with",
    ),
    (
        "What is the average temperature during snowfall events in the last four days? "
        "Please provide the answer with 'No snowfall'.",
        "No snowfall",
        "2024-08-05",
        "Toronto",
        "stat_on_days_with",
    ),
    (
        "What is the highest temperature recorded on days with both snowfall and rainfall in the past week in Oslo? "
        "Please provide the answer as a number.",
        2.5,
        "2024-01-20",
        "Berlin",
        "stat_on_days_with",
    ),
    (
        "What is the average snowfall amount on days with temperatures below freezing in the past 10 days? "
        "Please provide the answer as a number.",
        0.7275,
        "2024-02-15",
        "Minneapolis",
        "stat_on_days_with",
    ),
    (
        "On the 12th and 24th of next month, which days will have higher rainfall than snowfall? "
        "Please provide the answer in the form of a list ['YYYY-MM-DD'].",
        ["2024-02-13", "2024-02-20"],
        "2024-01-08",
        "Philadelphia",
        "which_days",
    ),
    (
        "Which day in the upcoming week will have more rainfall than snowfall? "
        "Please provide the answer in the form of a date 'YYYY-MM-DD' or 'None'.",
        "None",
        "2024-08-05",
        "San Francisco",
        "which_days",
    ),
    (
        "Which days in the upcoming month will have rain but no snow? "
        "Please provide the answer in the form of a list ['YYYY-MM-DD'].",
        ["2024-03-03", "2024-03-30"],
        "2024-02-10",
        "Portland",
        "which_days",
    ),
    (
        "On the 15th and 25th of this month, which days will have higher snowfall than rainfall? "
        "Please provide the answer in the form of a list ['YYYY-MM-DD'].",
        ["2024-01-15", "2024-01-25"],
        "2024-01-15",
        "Boston",
        "which_days",
    ),
    (
        "Which day next week will have the highest snowfall and rainfall combined? "
        "Please provide the answer in the form of a date 'YYYY-MM-DD' or 'None'.",
        "2024-07-19",
        "2024-07-15",
        "Denver",
        "extreme_amount_days",
    ),
    (
        "Which days in the upcoming month will have the lowest combined precipitation of rain and snow? "
        "Please provide the answer in the form of a list ['YYYY-MM-DD'].",
        ["2024-05-04", "2024-05-05"],
        "2024-04-08",
        "Houston",
        "extreme_amount_days",
    ),
    (
        "What is the total precipitation and rainfall over the past 3 days? Please give me a number in millimeter.",
        45.0,
        "2024-03-25",
        "Pittsburgh",
        "totals",
    ),
    (
        "How much snowfall is expected in the next 5 days and what is the total rainfall for the same period? "
        "Please provide the answer in an array.",
        [1.12, 2.5],
        "2024-02-15",
        "Denver",
        "totals",
    ),
    (
        "What is the forecast for both snowfall and rainfall on the 10th of next month? "
        "Please provide the answer in the form of a number list ['Snowfall', 'Rainfall'].",
        [1.5, 3.0],
        "2024-09-10",
        "New York",
        "totals",
    ),
    (
        "What is the temperature forecast for Berlin for the next 3 days? Please provide the answer as an array.",
        [16.5, 17.4, 20.8],
        "2024-08-25",
        "Berlin",
        "daily_values",
    ),
    (
        "What is the forecasted rainfall amount for the upcoming weekend? "
        "Please provide the answer in millimeters in an array.",
        [0.0, 2.5],
        "2024-07-15",
        "San Francisco",
        "daily_values",
    ),
    (
        "What is the current temperature trend in your current city compared to yesterday? "
        "Answer with 'increasing', 'decreasing', or 'stable'.",
        "stable",
        "2024-07-30",
        "Phoenix",
        "today_vs_yesterday",
    ),
    (
        "How does the current location's rainfall compare to the same time last year? "
        "Please provide the answer with 'Higher', 'Lower', or 'Similar'.",
        "Higher",
        "2024-07-15",
        "New York",
        "rain_today_vs_last_year",
    ),
    (
        "What was the total rainfall on the 10th of last month in comparison to the 5th of last month? "
        "Please provide the answer with 'higher', 'lower' or 'same'.",
        "lower",
        "2024-07-10",
        "Los Angeles",
        "rain_day_vs_day",
    ),
    (
        "What is the temperature difference between the highest temperature in Tokyo and the highest temperature "
        "in Sydney tomorrow? Please provide the answer as a number.",
        6.4,
        "2024-09-20",
        "Tokyo",
        "two_cities_highs_tomorrow",
    ),
    (
        "What is the current temperature in Tokyo today? Please provide the answer as a number.",
        21.6,
        "2024-09-25",
        "Tokyo",
        "day_of_month",
    ),
    (
        "What is the average temperature expected for next Friday in your current city? "
        "Please provide the answer as a number.",
        13.2,
        "2024-03-05",
        "Dallas",
        "day_of_month",
    ),
    (
        "What is the expected high temperature in New Orleans on Thanksgiving Day this year? "
        "Please provide the answer as a number.",
        14.4,
        "2024-10-20",
        "New Orleans",
        "day_of_month",
    ),
    (
        "What is the average daily rainfall in inches over the past month in Boston? "
        "Please provide the answer as a number.",
        0.12,
        "2024-09-25",
        "Boston",
        "window_mean",
    ),
    (
        "What is the average rainfall for this month so far? Please provide the answer in millimeters as a number.",
        6.65,
        "2024-07-05",
        "Detroit",
        "window_mean",
    ),
    (
        "How many days of light rain are predicted in your current location for the next 10 days? "
        "Please provide the answer as a number.",
        4,
        "2024-09-20",
        "Chicago",
        "days_with",
    ),
    (
        "Are there any chances of heavy rainfall in the next 48 hours? Please provide the answer with 'Yes' or 'No'.",
        "Yes",
        "2024-07-15",
        "Houston",
        "days_with",
    ),
    (
        "Will there be any snow accumulation and rainfall in the next 48 hours? Please answer with 'Yes' or 'No'.",
        "Yes",
        "2024-10-05",
        "Minneapolis",
        "days_with",
    ),
    (
        "Will there be sporadic showers throughout the day tomorrow? Answer with 'Yes' or 'No'.",
        "No",
        "2024-07-15",
        "Dallas",
        "rain_tomorrow",
    ),
    (
        "Interested in hiking in the Swiss Alps. What is the elevation difference between Zermatt and St. Moritz? "
        "Please provide the answer in meters as a number.",
        245,
        "2024-10-15",
        "Zermatt",
        "elevation_vs_city",
    ),
    (
        "Will there be a temperature rise in Athens towards the end of this week? "
        "Please provide the answer with 'Yes' or 'No'.",
        "Yes",
        "2024-09-18",
        "Athens",
        "rise_by_week_end",
    ),
    (
        "Will there be a temperature drop in London towards the end of this week? Answer with 'Yes' or 'No'.",
        "Yes",
        "2024-09-18",
        "London",
        "drop_by_week_end",
    ),
    (
        "Is it expected to be cooler in Minneapolis than in Detroit next Wednesday? "
        "Please provide the answer with 'Yes' or 'No'.",
        "Yes",
        "2024-04-05",
        "Minneapolis",
        "cooler_city_on_a_day",
    ),
    (
        "Will there be a temperature increase in Anchorage compared to Honolulu next Wednesday? "
        "Answer with 'Yes' or 'No'.",
        "No",
        "2024-11-10",
        "Anchorage",
        "warmer_city_on_a_day",
    ),
    (
        "What is the average temperature difference between Paris and Rome on Valentine's Day next year? "
        "Please provide the answer as a number.",
        2.6,
        "2024-02-14",
        "Paris",
        "two_cities_on_a_holiday",
    ),
    (
        "What is the average temperature range for San Diego during the month of October? "
        "Please provide the answer in Celsius as an array.",
        [15.7, 32.4],
        "2024-10-20",
        "San Diego",
        "temperature_range",
    ),
    (
        "Will there be a temperature increase in San Diego over the weekend? Answer Yes or No.",
        "Yes",
        "2024-01-17",
        "San Diego",
        "rise_over_weekend",
    ),
    (
        "Which city is likely to have the highest temperature next Friday: Denver, Houston, or Atlanta? "
        "Please provide the city name.",
        "Denver",
        "2024-01-20",
        "Denver",
        "warmest_city_on_a_day",
    ),
    (
        "What will be the average temperature outlook for a family BBQ in the backyard next Friday evening? "
        "Please provide the temperature in Celsius.",
        32.6,
        "2024-08-04",
        "Houston",
        "day_of_month",
    ),
    (
        "What is the average temperature in San Francisco and Los Angeles for the upcoming weekend? "
        "Please provide the answer as an array.",
        [11.65, 14.05],
        "2024-04-01",
        "San Francisco",
        "two_cities_window_means",
    ),
    (
        "What is the average of the average temperatures tomorrow in Boston, Philadelphia, and New York? "
        "Please provide the answer as a number.",
        5.53,
        "2024-11-30",
        "New York",
        "mean_of_cities",
    ),
    (
        "Will there be a sudden temperature drop in Reykjavik tomorrow? Answer Yes or No.",
        "Yes",
        "2024-05-15",
        "Reykjavik",
        "significant_change",
    ),
    (
        "Is the temperature difference between today and tomorrow significant in your current location? "
        "Answer with 'Yes' or 'No'.",
        "No",
        "2024-03-25",
        "Lima",
        "significant_change_here",
    ),
    (
        "Is there a noticeable difference in temperature between morning and evening today in your current "
        "location? Answer with 'Yes' or 'No'.",
        "Yes",
        "2024-11-22",
        "Nairobi",
        "significant_day_range_here",
    ),
    (
        "I'm planning a hiking trip next week. What is the temperature difference between the start and end of "
        "the week? Please provide the answer as a number.",
        -2.3,
        "2024-06-01",
        "Santiago",
        "week_start_to_end",
    ),
    (
        "Is it expected to be warmer in Lisbon than in Madrid next week? Please provide the answer with 'Yes' or 'No'.",
        "No",
        "2024-12-05",
        "Lisbon",
        "warmer_city_over_window",
    ),
    (
        "What is the expected temperature for a rooftop dinner in Cairo next Saturday night? Please provide the "
        "temperature in Fahrenheit as a number.",
        50,
        "2024-09-09",
        "Cairo",
        "fahrenheit_on_a_weekday",
    ),
    (
        "I'm going to Athens on a business trip on the 11th. I'm not sure about the air there. Is the air quality "
        "level there the same as here today? Please provide the answer in 'Yes' or 'No'.",
        "Yes",
        "2024-12-01",
        "Sofia",
        "same_air_level_there_and_here",
    ),
    (
        "What is the highest recorded rainfall amount in the past 3 years on this day? Please provide the answer "
        "as a number.",
        4.2,
        "2024-07-15",
        "Manila",
        "most_on_this_day_past_years",
    ),
    (
        "Which year in the previous 3 years had the most snowfall on January 5th? Please provide the answer in "
        "the YYYY format or 'Same'.",
        "2022",
        "2024-01-05",
        "Helsinki",
        "year_with_most_on_a_day",
    ),
    (
        "What is the highest amount of snowfall recorded in a single day in the past year? Please provide the "
        "answer as a number.",
        12.5,
        "2024-12-20",
        "Oslo",
        "window_max",
    ),
    (
        "What is the average rainfall for the first week of this month? Please provide the answer in "
        "millimeters as a number.",
        2.25,
        "2024-03-05",
        "Dublin",
        "window_mean",
    ),
    (
        "What will be the temperature range for a camping trip in the mountains next week? Please provide the "
        "range in Celsius as an array.",
        [10.5, 25.0],
        "2024-08-18",
        "Calgary",
        "temperature_range",
    ),
    (
        "How many days in the upcoming week are expected to have snowfall and what is the total rainfall for the "
        "same period? Please provide the two answers as an array.",
        [2, 14.6],
        "2024-12-20",
        "Montreal",
        "snow_days_and_rain_total",
    ),
    (
        "What is the current snowfall data and how much rain is expected in the next 2 days? Please provide the "
        "two answers as an array.",
        [0.0, 3.4],
        "2024-01-30",
        "Quebec",
        "snow_today_and_rain_ahead",
    ),
    (
        "What is the forecasted snowfall and rainfall for the upcoming week? Please provide the answer in the "
        "form of a list of tuples [('YYYY-MM-DD', 'Snowfall', 'Rainfall'), ...].",
        [
            [f"2024-12-{day}", snow, rain]
            for day, snow, rain in zip(range(11, 18), ["0.0", "0.7", "2.15"] + ["0.0"] * 4, ["1.2"] + ["0.0"] * 6)
        ],
        "2024-12-10",
        "Anchorage",
        "daily_tuples",
    ),
    (
        "Which city is likely to experience the most consecutive days of rain in the next month: Bergen or "
        "Seville? Please tell me the city name.",
        "Seville",
        "2024-09-20",
        "Bergen",
        "longest_wet_streak_of_two",
    ),
    (
        "Is the rainfall today higher than the average rainfall for this week in your current location? Answer "
        "with 'Yes' or 'No'.",
        "Yes",
        "2024-03-27",
        "Glasgow",
        "today_above_week_mean",
    ),
    (
        "Which city is likely to experience a temperature rise on Saturday: Bern, Graz, or Linz? Please provide "
        "the city name.",
        "Graz",
        "2024-05-20",
        "Bern",
        "biggest_rise_on_a_weekday",
    ),
    (
        "I'm visiting Aspen for skiing. What is the elevation difference between its two highest lifts? Please "
        "provide the answer as 'Unknown'.",
        "Unknown",
        "2024-12-15",
        "Aspen",
        "prescribed_answer",
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


def test_named_days_a_floating_holiday_and_the_next_weekday() -> None:
    assert named_day(date(2023, 10, 20), {"holiday": "Thanksgiving Day"}) == date(2023, 11, 23)
    assert named_day(date(2024, 10, 20), {"holiday": "Thanksgiving Day"}) == date(2024, 11, 28)
    assert named_day(date(2023, 3, 5), {"weekday": "Friday"}) == date(2023, 3, 10)  # a Sunday
    assert named_day(date(2023, 3, 10), {"weekday": "Friday"}) == date(2023, 3, 17)  # not today
    assert named_day(date(2023, 2, 14), {"holiday": "Valentine's Day", "year": "next"}) == date(2024, 2, 14)
    assert point_day(date(2023, 9, 20), "week_end", {}) == date(2023, 9, 24)  # a Wednesday: that Sunday
    assert point_day(date(2023, 9, 23), "weekend_saturday", {}) == date(2023, 9, 30)  # a Saturday: the next
    assert question_days(date(2023, 10, 20), {"month": "October"}) == (date(2023, 10, 1), date(2023, 10, 31))
    # a month named alone is that whole month; two days of it, the days from one to the other
    assert question_days(date(2023, 1, 8), {"month": "upcoming"}) == (date(2023, 2, 1), date(2023, 2, 28))
    assert question_days(date(2023, 12, 15), {"month": "this", "day": "21", "end_day": "28"}) == (
        date(2023, 12, 21),
        date(2023, 12, 28),
    )


def test_a_mean_is_built_from_the_fewest_days_python_divides_exactly() -> None:
    values = mean_values(16.933333333333334, 10, 1)
    assert values is not None and len(values) == 3 and sum(values) / 3 == 16.933333333333334
    assert mean_values(0.3, 4, 1) == [0.3]
    snow = mean_values(0.7275, 10, 2)
    assert snow is not None and sum(snow) / len(snow) == 0.7275


def test_days_across_today_are_read_from_the_archive_today_and_the_forecast(tmp_path: Path) -> None:
    goal = (
        "On the 10th and 20th of this month, which days will have higher snowfall than rainfall? "
        "Please provide the answer in the form of a list ['YYYY-MM-DD']."
    )
    _write(tmp_path / "weather.jsonl", [(goal, ["2023-01-12", "2023-01-15", "2023-01-18"], "2023-01-15", "Oslo", "")])
    env = make("weather", data_dir=str(tmp_path), train_tasks=5)
    steps = play_expert(env, "file-0")
    tools = [action.split()[0] for action, _ in steps]
    assert {"get_historical_snow", "get_current_snow", "get_snow_forecast"} <= set(tools)
    assert steps[-1][1].info.get("success") is True


def test_totals_take_the_other_order_where_an_earlier_window_needs_it(tmp_path: Path) -> None:
    """The original sorts a list answer: [0.0, 1.12] may be snow 1.12 and rain 0.0. A window's
    snowfall pinned first (1.12 cm over the same days) leaves only that reading."""
    window = (
        "What is the total snowfall expected in the next 5 days in Denver? Please provide the answer as a number.",
        1.12,
        "2023-02-15",
        "Denver",
        "window_total",
    )
    both = (
        "How much snowfall is expected in the next 5 days and what is the total rainfall for the same period? "
        "Please provide the answer in an array.",
        [0.0, 1.12],
        "2023-02-15",
        "Denver",
        "totals",
    )
    _write(tmp_path / "weather.jsonl", [window, both])
    env = make("weather", data_dir=str(tmp_path), train_tasks=5)
    for task_id in ("file-0", "file-1"):
        assert play_expert(env, task_id)[-1][1].info.get("success") is True


def test_a_statistic_recorded_as_a_sentence_stays_an_exception(tmp_path: Path) -> None:
    goal = (
        "What is the average temperature during days with rainfall in the past 2 weeks? "
        "Please provide the answer as a number."
    )
    _write(tmp_path / "weather.jsonl", [(goal, "Calculation done elsewhere", "2023-08-15", "Miami", "")])
    env = make("weather", data_dir=str(tmp_path), train_tasks=5)
    env.reset(task_id="file-0")
    assert env.expert_action() is None
    assert env.taskset.by_id["file-0"][1].kind == "stat_on_days_with"


def test_a_significant_change_is_the_data_files_degrees_in_the_direction_named() -> None:
    assert SIGNIFICANT == 5.0
    assert significant(10.0, 15.0, "drop") and not significant(10.1, 15.0, "drop")
    assert not significant(20.0, 15.0, "drop")  # a rise is no drop
    assert significant(20.0, 15.0, "increase") and not significant(10.0, 15.0, "increase")
    assert significant(10.0, 15.0, "difference") and significant(20.0, 15.0, "difference")
    assert not significant(12.4, 15.0, "difference")


def test_the_first_week_of_this_month_ends_before_today_and_this_week_runs_monday_to_sunday() -> None:
    assert window(date(2023, 3, 5), "next", "first week of this month") == (date(2023, 3, 1), date(2023, 3, 4))
    assert window(date(2024, 3, 27), "this", "this week") == (date(2024, 3, 25), date(2024, 3, 31))
    assert window(date(2023, 3, 20), "next", "first week of this month") == (date(2023, 3, 1), date(2023, 3, 7))


def test_a_year_of_archive_is_read_in_queries_of_at_most_31_days(tmp_path: Path) -> None:
    year = next(case for case in CASES if "single day in the past year" in case[0])
    _write(tmp_path / "weather.jsonl", [year])
    env = make("weather", data_dir=str(tmp_path), train_tasks=5)
    steps = play_expert(env, "file-0")
    archive = [action for action, _ in steps if action.startswith("get_historical_snow")]
    assert len(archive) == 12  # 365 days in queries of 31 (the tool: at most 30 between start and end)
    assert all("Error" not in result.observation for _, result in steps)
    assert steps[-1][1].info.get("success") is True


def test_a_windows_maximum_caps_the_days_a_later_total_fills(tmp_path: Path) -> None:
    """A year's highest daily snowfall (12.5 cm) bounds the days it covers; a month's total
    filled later (300 cm over 30 days, 25 of them under the bound) puts the rest on the days
    outside it, so both answers hold (spread by the generated shape alone, some day would pass
    12.5 cm)."""
    year = (
        "What is the highest amount of snowfall recorded in a single day in the past year? Please provide the "
        "answer as a number.",
        12.5,
        "2024-12-20",
        "Moscow",
        "window_max",
    )
    month = (
        "What is the total snowfall in inches over the past month in Moscow? Please provide the answer as a number.",
        118.11,
        "2024-01-15",
        "Moscow",
        "window_total",
    )
    _write(tmp_path / "weather.jsonl", [year, month])
    env = make("weather", data_dir=str(tmp_path), train_tasks=5)
    for task_id in ("file-0", "file-1"):
        assert play_expert(env, task_id)[-1][1].info.get("success") is True, task_id


def _note(env: Any, task_id: str) -> str:
    task = env.taskset.by_id[task_id][1]
    assert not task.plan
    return str(task.note)


def test_every_exception_names_its_reason(tmp_path: Path) -> None:
    """A question of a listed shape gets that reason; a recognised one whose recorded answer is
    no value, or whose subgoals disagree, gets its named reason; only a shape the data file does
    not list is "not recognised" alone."""
    rows = [
        (
            "What is the percentage chance of rainfall on the 5th of next month? Please provide the answer as a "
            "percentage.",
            "Not provided",
            "2023-07-15",
            "Atlanta",
            None,
        ),
        ("Will it be windy tomorrow? Answer with 'Yes' or 'No'.", "No", "2023-07-10", "Miami", None),
        (
            "What is the average temperature during days with rainfall in the past 2 weeks? Please provide the "
            "answer as a number.",
            "Calculation done elsewhere",
            "2023-08-15",
            "Miami",
            "stat_on_days_with",
        ),
    ]
    _write(tmp_path / "weather.jsonl", rows)
    env = make("weather", data_dir=str(tmp_path), train_tasks=5)
    assert "no weather tool returns a probability" in _note(env, "file-0")
    assert _note(env, "file-1") == exceptions.UNKNOWN
    assert _note(env, "file-2") == f"recognised as stat_on_days_with, but {exceptions.UNHELD['not_a_value']}"
    reason = exceptions.unheld("two_cities_highs_tomorrow", "...", 6.4, [6.399999999999999, 6.4], 6.4)
    assert exceptions.UNHELD["subgoals_differ"] in reason
    never = exceptions.UNHELD["distance_geopy_never_returns"]
    assert never in exceptions.unheld("distance_to", "...", 507.978, [507.978], 1.5)
    # a value geopy returned (Houston to Orlando) is on its lattice: a cycle, not a rounding
    real = 1366.5125333931778
    assert exceptions.UNHELD["distance_cycle"] in exceptions.unheld("distance_to", "...", real, [real], 1.5)


def test_geopy_returns_only_products_of_the_minor_axis() -> None:
    """geographiclib's last step multiplies by b: a distance it returned is on the lattice, a
    hand-rounded one (the file's 507.978, 118.294, 504.318) is not, at any coordinates."""
    assert exceptions.geodesic_can_return(float(geodesic((40.44062, -79.99589), (40.71427, -74.00597)).km))
    assert exceptions.geodesic_can_return(float(geodesic((30.0, -95.0), (28.5, -81.4)).km))
    for rounded in (507.978, 118.294, 504.318):
        assert not exceptions.geodesic_can_return(rounded)


def test_a_prescribed_answer_is_a_word_not_a_format() -> None:
    found = recognise("What is the ski area's vertical drop? Please provide the answer as 'Unknown'.")
    assert found is not None and found.kind == "prescribed_answer" and found.params["word"] == "Unknown"
    assert recognise("Which day was the coldest? Please provide the answer as 'YYYY-MM-DD'.") is None
