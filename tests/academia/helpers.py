"""An Academia env over tasks a test makes up (the network is the generated one)."""

from __future__ import annotations

from typing import Any

from coevo.envs.academia.env import AcademiaEnv, AcademiaShared
from coevo.envs.academia.network import generate
from coevo.envs.toolusage.tasks import TaskSet, ToolTask


def task_of(case: dict[str, Any]) -> ToolTask:
    return ToolTask(
        task_id=case["task_id"], goal=case["goal"], subgoals=tuple(case["subgoals"]), answer=case["subgoals"][-1]
    )


def env_with(tasks: list[ToolTask]) -> AcademiaEnv:
    return AcademiaEnv(shared=AcademiaShared(TaskSet({"train": [], "test": tasks}), generate(0)))
