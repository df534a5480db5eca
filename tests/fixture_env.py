"""A tiny deterministic env for protocol and server tests until (and besides) the real envs.

Guess a hidden number: "guess N" answers "higher"/"lower"/"correct". The target comes from the
task id, so the same task and actions always give the same observations.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from coevo.envs.base import Env, ResetResult, StepResult, UnknownTask

_GUESS = re.compile(r"^\s*guess\s+(-?\d+)\s*$", re.IGNORECASE)


class GuessEnv(Env):
    name = "guess"
    version = "1"
    action_format = "guess N  (an integer between 1 and 100)"
    max_steps = 12
    default_split = "train"
    heldout_splits = ("test",)
    action_example = ("Half of the range is left, so I guess its middle.", "guess 50")
    cpu_heavy = False

    SPLITS = {"train": 200, "test": 50}

    def splits(self) -> Mapping[str, int]:
        return self.SPLITS

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        count = self.SPLITS[split]
        stop = count if limit is None else min(count, offset + limit)
        return [f"{split}-{i}" for i in range(offset, stop)]

    def split_of(self, task_id: str) -> str:
        split, _, index = task_id.rpartition("-")
        if split not in self.SPLITS or not index.isdigit() or int(index) >= self.SPLITS[split]:
            raise UnknownTask(f"unknown task id {task_id!r}")
        return split

    def describe_task(self, task_id: str) -> dict[str, Any]:
        return {"range": [1, 100]}

    def _target(self, task_id: str) -> int:
        split, _, index = task_id.rpartition("-")
        return (int(index) * 37 + (7 if split == "test" else 0)) % 100 + 1

    def _reset(self, task_id: str, seed: int) -> ResetResult:
        self.target = self._target(task_id)
        self.low, self.high = 1, 100
        return ResetResult(
            "I am thinking of a number between 1 and 100. Guess it.",
            {"task": "Find the hidden number with as few guesses as possible."},
        )

    def _step(self, action: str) -> StepResult:
        m = _GUESS.match(action)
        if not m:
            return StepResult("Invalid action. Use: guess N", 0.0, False, info={"valid": False})
        n = int(m.group(1))
        if n == self.target:
            return StepResult("correct", 1.0, True, info={"valid": True})
        if n < self.target:
            self.low = max(self.low, n + 1)
            return StepResult("higher", 0.0, False, info={"valid": True})
        self.high = min(self.high, n - 1)
        return StepResult("lower", 0.0, False, info={"valid": True})

    def expert_action(self) -> str | None:
        if self.task_id is None or self.done:
            return None
        return f"guess {(self.low + self.high) // 2}"
