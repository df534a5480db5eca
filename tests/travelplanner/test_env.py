"""Episodes in both modes, in process: tools, notebook, submissions, expert, replay."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from coevo.envs.registry import make
from coevo.envs.travelplanner.env import TravelPlannerEnv, expert_script
from coevo.envs.travelplanner.official_data import write_official_folder
from coevo.envs.travelplanner.tools import INVALID_ACTION, NULL_ACTION, city_search, flight_search
from tests.travelplanner.tiny import plan, query


@pytest.fixture
def env() -> TravelPlannerEnv:
    return make("travelplanner")  # type: ignore[return-value]


def test_catalogue(env: TravelPlannerEnv) -> None:
    assert env.splits() == {"train": 45, "validation": 180, "test": 1000}
    assert env.task_ids("validation", 178) == ["validation-178", "validation-179"]
    assert env.describe_task("test-2") == {"level": "easy", "days": 7}
    assert env.describe_task("test-14") == {"level": "medium", "days": 7}
    assert env.split_of("train-44") == "train"
    small = make("travelplanner", split_sizes="train=3,validation=2")
    assert small.splits() == {"train": 3, "validation": 2}


def test_two_stage_tools_and_notebook(env: TravelPlannerEnv) -> None:
    reset = env.reset(task_id="validation-1")
    q = reset.info["query"]
    assert reset.info["task"] == q["query"] and reset.info["mode"] == "two-stage"
    assert reset.observation.endswith("Query: " + q["query"]) and "Planner[plan]" in reset.observation
    route = f"{q['org']}, {q['dest']}, {q['date'][0]}"
    step = env.step(f"FlightSearch[{route}]")
    assert step.observation == flight_search(env.shared.db, route).observation and not step.done
    assert env.step("NotebookWrite[Flights out]").observation == (
        "The information has been recorded in Notebook, and its index is 0."
    )
    assert env.step("Action 3: CitySearch[Texas]").observation == city_search(env.shared.db, "Texas").observation
    env.step("NotebookWrite[still the flights]")  # CitySearch stores nothing: the flights again
    notebook = env.notebook_contents()
    assert [e["Short Description"] for e in notebook] == ["Flights out", "still the flights"]
    assert notebook[0]["Content"] == notebook[1]["Content"] == flight_search(env.shared.db, route).data
    assert env.step("Fly[somewhere]").observation == INVALID_ACTION
    assert env.step("   ").observation == NULL_ACTION
    unreadable = env.step("Planner[I would go to the beach]")
    assert not unreadable.done and unreadable.reward == 0 and "could not be read" in unreadable.observation


def test_expert_two_stage_episode(env: TravelPlannerEnv) -> None:
    env.reset(task_id="validation-8")  # hard, 7 days
    script = expert_script(env.task)
    actions = []
    while not env.done:
        action = env.expert_action()
        assert action is not None
        actions.append(action)
        result = env.step(action)
    assert actions[:-1] == script and actions[-1].startswith("Planner[")
    assert len(actions) <= env.max_steps and result.done and result.reward == 1.0
    evaluation = result.info["evaluation"]
    assert evaluation["final_pass"] and len(evaluation["commonsense"]) == 8 and len(evaluation["hard"]) == 5
    assert result.info["plan"] == env.task.itinerary.plan()
    assert env.expert_action() is None


def test_failing_plan_ends_with_reward_zero(env: TravelPlannerEnv) -> None:
    env.reset(task_id="validation-0")
    broken = env.task.itinerary.plan()
    broken[1]["lunch"] = broken[1]["breakfast"]
    result = env.step("Planner[" + json.dumps(broken) + "]")
    assert result.done and result.reward == 0.0
    assert result.info["evaluation"]["commonsense"]["is_valid_restaurants"]["passed"] is False
    assert "Diverse Restaurants" in result.observation and "Final pass: no." in result.observation


def test_expert_recovers_from_an_agents_detour_and_the_step_limit(env: TravelPlannerEnv) -> None:
    env.reset(task_id="validation-5")
    for _ in range(env.max_steps - 2):
        env.step("CitySearch[Nowhere]")
    assert env.expert_action().startswith("Planner[")  # no room left for searching
    assert env.step(env.expert_action()).reward == 1.0
    env.reset(task_id="validation-5")
    for _ in range(env.max_steps - 1):
        env.step("CitySearch[Nowhere]")
    last = env.step("CitySearch[Nowhere]")
    assert last.truncated and not last.info.get("evaluation")


def test_text_form_plans_are_accepted(env: TravelPlannerEnv) -> None:
    text_env = make("travelplanner", expert_plan_format="text")
    text_env.reset(task_id="validation-3")
    while not text_env.done:
        action = text_env.expert_action()
        result = text_env.step(action)
    assert action.startswith("Planner[Day 1:\nCurrent City: from ") and result.reward == 1.0
    env.reset(task_id="validation-3")
    bare = action[len("Planner[") : -1]
    assert env.step(bare).reward == 1.0  # a bare plan is a submission too


def test_sole_planning() -> None:
    env = make("travelplanner", mode="sole-planning")
    reset = env.reset(task_id="validation-2")
    info = reset.observation.split("Given information: ", 1)[1]
    assert info.startswith("[{'Description': 'Attractions in ")
    for city in env.task.itinerary.cities:
        assert f"'Description': 'Restaurants in {city}'" in info
    assert reset.observation.rstrip().endswith("Travel Plan:")
    result = env.step(env.expert_action())
    assert result.done and result.reward == 1.0
    env.reset(task_id="validation-2")
    assert env.step("Planner[" + env.expert_action() + "]").reward == 1.0


def test_snapshot_and_restore_replay(env: TravelPlannerEnv) -> None:
    env.reset(task_id="train-7", seed=3)
    for _ in range(5):
        last = env.step(env.expert_action())
    state = env.snapshot()
    twin = make("travelplanner")
    restored = twin.restore(state)
    assert restored.observation == last.observation and twin.notebook == env.notebook
    assert twin.expert_action() == env.expert_action()


def test_official_queries_and_database(tmp_path: Path) -> None:
    from tests.travelplanner.tiny import tiny_sandbox

    folder = tmp_path / "database"
    write_official_folder(tiny_sandbox(), folder)
    record = query(budget=1500).public_dict()
    record["date"], record["local_constraint"] = str(record["date"]), str(record["local_constraint"])
    with (tmp_path / "validation.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(record))
        writer.writeheader()
        writer.writerow(record)
    env = make(
        "travelplanner",
        queries=str(tmp_path / "validation.csv"),
        database_dir=str(folder),
        db_url=f"sqlite:///{tmp_path / 'sandbox.sqlite'}",
    )
    assert env.splits() == {"validation": 1} and env.describe_task("validation-0") == {"level": "easy", "days": 3}
    env.reset(task_id="validation-0")
    assert env.step("Planner[" + json.dumps(plan()) + "]").reward == 1.0
    env.reset(task_id="validation-0")
    while not env.done:
        result = env.step(env.expert_action())
    assert result.reward == 1.0


def test_bad_options() -> None:
    with pytest.raises(ValueError, match="mode"):
        TravelPlannerEnv.load_shared(mode="one-stage")
