"""Weather env: the contract, the expert on every generated task, the native rewards, bad input,
MCP tools, fork and AgentBoard's task files loaded from a path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coevo.envs import check_env
from coevo.envs.base import ToolCall, UnknownTool
from coevo.envs.registry import make
from coevo.envs.toolusage.tasks import ToolTask
from coevo.envs.weather.env import WeatherEnv
from tests.weather.helpers import env_with

SMALL = {"train_tasks": 20, "test_tasks": 30}


def _play_expert(env: WeatherEnv, task_id: str) -> tuple[float, dict[str, object]]:
    env.reset(task_id=task_id)
    reward, info = 0.0, {}
    while (action := env.expert_action()) is not None:
        result = env.step(action)
        reward, info = result.reward, result.info
    return reward, info


def test_weather_passes_the_env_contract() -> None:
    check_env("weather", **SMALL)


def test_the_expert_wins_every_generated_task() -> None:
    env = make("weather")
    assert env.splits() == {"train": 1000, "test": 343}
    for task_id in env.task_ids("test"):
        reward, info = _play_expert(env, task_id)
        assert (reward, info["success"]) == (1.0, True), task_id
        assert env.done


def test_native_reward_is_the_progress_rate_at_the_end() -> None:
    task = ToolTask(
        "t", "Two things.", ("good", 7.5), 7.5, {"current_date": "2023-05-15", "current_location": "Pittsburgh"}
    )
    env = env_with([task])
    env.reset(task_id="t")
    first = env.step("Action: get_air_quality_level with Action Input: {'air_quality_index': 3}")
    assert (first.reward, first.done, first.info["progress_rate"]) == (0.0, False, 0.5)
    last = env.step("Action: finish with Action Input: {'answer': 7.4}")
    assert (last.reward, last.done, last.info["success"]) == (0.5, True, False)


def test_a_native_client_may_send_the_line_without_its_action_prefix() -> None:
    env = make("weather", **SMALL)
    env.reset(task_id="test-0")
    assert env.step("get_user_current_date with Action Input: {}").observation == env.task.init_config["current_date"]  # type: ignore[union-attr]


def test_the_step_cap_scores_the_progress_so_far() -> None:
    task = ToolTask("t", "Give 1.", (1,), 1, {"current_date": "2023-05-15", "current_location": "Pittsburgh"})
    env = env_with([task])
    env.max_steps = 2
    env.reset(task_id="t")
    env.step("Action: get_air_quality_level with Action Input: {'air_quality_index': 1}")
    result = env.step("Action: get_user_current_date with Action Input: {}")
    assert (result.truncated, result.reward, result.info["success"]) == (True, 0.0, False)


@pytest.mark.parametrize(
    "action, expected",
    [
        ("Action: get_latitude_longitude with Action Input: {'name': 'Atlantis'}", "ERROR | KeyError('results')"),
        (
            "Action: get_elevation with Action Input: {'latitude': 'north', 'longitude': 3}",
            '{"reason":"Cannot initialize Float from invalid String value north for key latitude","error":true}',
        ),
        (
            "Action: get_historical_temp with Action Input: {'latitude': 95, 'longitude': 3, 'start_date': '2001-01-01', 'end_date': '2001-01-01'}",
            '{"reason":"Latitude must be in range of -90 to 90°. Given: 95.0.","error":true}',
        ),
        (
            "Action: get_historical_temp with Action Input: {'latitude': 9, 'longitude': 3, 'start_date': '2001-01-05', 'end_date': '2001-01-01'}",
            '{"reason":"End-date must be larger or equals than start-date","error":true}',
        ),
        (
            "Action: get_distance with Action Input: {'latitude1': 'x', 'longitude1': 0, 'latitude2': 0, 'longitude2': 0}",
            "ERROR | ValueError(",
        ),
    ],
)
def test_bad_arguments_get_the_services_answer_as_text(action: str, expected: str) -> None:
    env = make("weather", **SMALL)
    env.reset(task_id="test-0")
    result = env.step(action)
    assert result.observation.startswith(expected)
    assert not result.done


def test_an_unknown_place_is_not_found_and_coordinates_anywhere_have_weather() -> None:
    env = make("weather", **SMALL)
    env.reset(task_id="test-0")
    line = "Action: get_historical_rain with Action Input: {'latitude': -12.3, 'longitude': 45.6, 'start_date': '2001-01-01', 'end_date': '2001-01-03'}"
    first = env.step(line).observation
    assert "'rain_sum': [" in first and "'latitude': -12.3" in first
    assert env.step(line).observation == first  # the same place and days, the same record


def test_mcp_tools_are_the_listed_tools_and_calls_become_action_lines() -> None:
    env = make("weather", **SMALL)
    env.reset(task_id="test-0")
    tools = {t.name: t for t in env.episode_tools()}
    assert "convert_zipcode_to_address" not in tools and "finish" in tools
    assert tools["get_historical_temp"].parameters["required"] == ["latitude", "longitude", "start_date", "end_date"]
    line = env.tool_calls_action([ToolCall("finish", {"answer": True})])
    assert line == "Action: finish with Action Input: {'answer': True}"  # a Python literal, not JSON
    assert env.step(line).done
    with pytest.raises(UnknownTool):
        env.tool_calls_action([ToolCall("convert_zipcode_to_address", {"zipcode": "1"})])


def test_fork_by_replay_gives_the_same_state() -> None:
    env = make("weather", **SMALL)
    env.reset(task_id="test-2")
    for _ in range(2):
        env.step(env.expert_action() or "")
    twin = make("weather", **SMALL)
    twin.restore(env.snapshot())
    assert twin.expert_action() == env.expert_action()
    assert twin.step(twin.expert_action() or "").observation == env.step(env.expert_action() or "").observation


def test_agentboard_files_load_with_their_answers_pinned(tmp_path: Path) -> None:
    rows = [
        {
            "id": 0,
            "goal": "What was the average temperature in Celsius yesterday? Please provide the answer as a number.",
            "subgoals": [-7.5],
            "additional_info": {
                "answer": -7.5,
                "init_config": {"current_date": "2023-06-15", "current_location": "New York"},
                "goal_type": 0,
                "tool": "weather",
            },
            "difficulty": "hard",
        },
        {
            "id": 1,
            "goal": "Brrr. What's the lowest temperature today? Please provide the answer as a number.",
            "subgoals": [40.0],
            "additional_info": {
                "answer": 40.0,
                "init_config": {"current_date": "2023-01-15", "current_location": "Springfield"},
                "goal_type": 0,
                "tool": "weather",
            },
            "difficulty": "hard",
        },
        {
            "id": 2,
            "goal": "Will it be windy tomorrow? Answer Yes or No.",
            "subgoals": ["No"],
            "additional_info": {
                "answer": "No",
                "init_config": {"current_date": "2023-01-15", "current_location": "Pittsburgh"},
                "goal_type": 0,
                "tool": "weather",
            },
            "difficulty": "hard",
        },
    ]
    (tmp_path / "weather.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = make("weather", data_dir=str(tmp_path), train_tasks=5)
    assert env.task_ids("test") == ["file-0", "file-1", "file-2"]
    for task_id in ("file-0", "file-1"):  # recognised: the world now holds the file's answer
        reward, info = _play_expert(env, task_id)
        assert (reward, info["success"]) == (1.0, True), task_id
    env.reset(task_id="file-2")
    assert env.expert_action() is None  # not a kind the loader knows: no plan
    # the AgentGym routes index the file's lines
    env.agentgym = True
    assert env.agentgym_profile.adapt(env).task(1) == "file-1"
