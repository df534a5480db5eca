"""A Weather env over tasks a test makes up (the sandbox world is the generated one)."""

from __future__ import annotations

from typing import Any

from coevo.envs.toolusage.tasks import TaskSet, ToolTask
from coevo.envs.weather.env import WeatherEnv, WeatherShared
from coevo.envs.weather.world import WeatherWorld, load_cities


def task_of(case: dict[str, Any]) -> ToolTask:
    return ToolTask(
        task_id=case["task_id"],
        goal=case["goal"],
        subgoals=tuple(case["subgoals"]),
        answer=case["subgoals"][-1],
        init_config=case["init_config"],
    )


def env_with(tasks: list[ToolTask], **options: Any) -> WeatherEnv:
    shared = WeatherShared(TaskSet({"train": [], "test": tasks}), WeatherWorld(load_cities()))
    return WeatherEnv(shared=shared, **options)
