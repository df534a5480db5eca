"""The guess env with a scoring option, for the re-scoring tests: served by path, never registered.

`tolerance` (default 0): a guess within that distance of the target counts as correct, so the
same recorded guesses earn different verdicts under tolerance=0 and tolerance=1.
"""

from __future__ import annotations

from typing import Any

from coevo.envs.base import StepResult
from tests.fixture_env import GuessEnv


class TolerantGuessEnv(GuessEnv):
    name = "tolerant_guess"

    def __init__(self, shared: Any = None, **options: Any) -> None:
        super().__init__(shared, **options)
        self.tolerance = int(options.get("tolerance", 0))

    def _step(self, action: str) -> StepResult:
        result = super()._step(action)
        guess = action.strip().removeprefix("guess").strip()
        if not result.done and guess.lstrip("-").isdigit() and abs(int(guess) - self.target) <= self.tolerance:
            return StepResult("close enough", 1.0, True, info={"valid": True})
        return result
