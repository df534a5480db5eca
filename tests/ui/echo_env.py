"""An env that repeats the agent's action in its observation: what a page shows of env and agent
text must stay text (the escaping tests put `<script>` in both)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from coevo.envs.base import Env, ResetResult, StepResult


class EchoEnv(Env):
    name = "echo"
    version = "1"
    action_format = "any text; 'stop' ends the episode"
    max_steps = 5
    default_split = "train"
    action_example = ("", "hello")
    cpu_heavy = False

    def splits(self) -> Mapping[str, int]:
        return {"train": 3}

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        ids = [f"train-{i}" for i in range(3)]
        return ids[offset : None if limit is None else offset + limit]

    def split_of(self, task_id: str) -> str:
        return "train"

    def _reset(self, task_id: str, seed: int) -> ResetResult:
        return ResetResult("Say something <b>bold</b>.", {"task": task_id})

    def _step(self, action: str) -> StepResult:
        done = action.strip() == "stop"
        return StepResult(f"You said: {action}", 1.0 if done else 0.0, done, info={"echo": action})

    def expert_action(self) -> str | None:
        return None if self.done else "stop"

    def describe_task(self, task_id: str) -> dict[str, Any]:
        return {}
