"""The guess env with failures on demand, for the end-status tests: served by path, never registered.

"crash" makes the env raise (an env error the server must record, never a reward); "give up"
ends the episode with the env's own verdict of failure (done, reward 0).
"""

from __future__ import annotations

from coevo.envs.base import StepResult
from tests.fixture_env import GuessEnv


class FaultyGuessEnv(GuessEnv):
    name = "faulty_guess"

    def _step(self, action: str) -> StepResult:
        if action.strip() == "crash":
            raise RuntimeError("the simulator lost its state")
        if action.strip() == "give up":
            return StepResult("You gave up.", 0.0, True, info={"success": False})
        return super()._step(action)
