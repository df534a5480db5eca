"""API-Bank whose server fails chosen steps with an exception (an env error), for the real-task
arms' tests. Served by path, never registered.

Options beside API-Bank's: `fail_steps` ("2" or "1-5": the 1-based numbers of the steps that
raise, counted per server: give each server its own `nonce`) and `fail_tasks` (comma-separated
task ids whose every step raises).
"""

from __future__ import annotations

from typing import Any

from coevo.envs.apibank.env import ApiBankEnv
from coevo.envs.base import StepResult


class FlakyApiBankEnv(ApiBankEnv):
    name = "flaky_apibank"

    @classmethod
    def load_shared(cls, **options: Any) -> Any:
        shared = super().load_shared(**options)
        shared.steps_taken = 0
        return shared

    def _step(self, action: str) -> StepResult:
        self.shared.steps_taken += 1
        first, _, last = str(self.options.get("fail_steps", "")).partition("-")
        if first and int(first) <= self.shared.steps_taken <= int(last or first):
            raise RuntimeError("the sandbox lost its tables")
        if self.task_id in str(self.options.get("fail_tasks", "")).split(","):
            raise RuntimeError(f"task {self.task_id} always fails")
        return super()._step(action)
