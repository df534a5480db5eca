"""A Movie env over tasks a test makes up (the database is the generated one)."""

from __future__ import annotations

from typing import Any

from coevo.envs.movie.catalogue import generate
from coevo.envs.movie.env import MovieEnv, MovieShared
from coevo.envs.toolusage.tasks import TaskSet, ToolTask


def task_of(case: dict[str, Any]) -> ToolTask:
    return ToolTask(
        task_id=case["task_id"], goal=case["goal"], subgoals=tuple(case["subgoals"]), answer=case["subgoals"][-1]
    )


def env_with(tasks: list[ToolTask]) -> MovieEnv:
    return MovieEnv(shared=MovieShared(TaskSet({"train": [], "test": tasks}), generate(0)))
