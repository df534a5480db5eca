"""A test env whose reward any text earns a share of, so that GRPO groups of an untrained tiny
model differ in reward (an all-zero group has no advantage and trains nothing).

"Reply with digits only": each action earns the share of its characters that are digits; the
episode ends on an all-digit action or after max_steps. Served by path, never registered.
"""

from __future__ import annotations

from coevo.envs.base import ResetResult, StepResult
from tests.fixture_env import GuessEnv


def digit_share(action: str) -> float:
    """The reward rule, also used by the tests to check the rewards the trainers received."""
    text = action.strip()
    return sum(c.isdigit() for c in text) / len(text) if text else 0.0


class DigitsEnv(GuessEnv):
    name = "digits"
    action_format = "digits only"
    action_example = ("Only digits count.", "4821")
    max_steps = 3

    def _reset(self, task_id: str, seed: int) -> ResetResult:
        self.target = self._target(task_id)
        return ResetResult(f"Write the number {self.target} with digits only.", {"task": "Reply with digits only."})

    def _step(self, action: str) -> StepResult:
        share = digit_share(action)
        if share == 1.0:
            return StepResult("All digits. Done.", 1.0, True, info={"valid": True})
        return StepResult(f"{share:.0%} of your reply were digits. Digits only.", share, False, info={"valid": True})

    def expert_action(self) -> str | None:
        return None if self.done else str(self.target)


class FlakyDigitsEnv(DigitsEnv):
    """DigitsEnv whose server fails chosen resets (an env error at create): option `fail_resets`,
    the 1-based numbers of the resets that raise, counted per server (per options: give each
    server its own `nonce`), e.g. "2" or "2-99"."""

    name = "flaky_digits"

    @classmethod
    def load_shared(cls, **options: object) -> dict[str, int]:
        return {"resets": 0}

    def _reset(self, task_id: str, seed: int) -> ResetResult:
        self.shared["resets"] += 1
        first, _, last = str(self.options.get("fail_resets", "")).partition("-")
        if first and int(first) <= self.shared["resets"] <= int(last or first):
            raise RuntimeError("the env lost its data")
        return super()._reset(task_id, seed)
