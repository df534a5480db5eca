"""Variants of the fixture env that exercise server paths: threads, crashes, admin commands.

Served by path ("tests.server.envs:SlowGuessEnv"), never registered, so the contract tests'
env list stays the real one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile
from coevo.envs.base import ResetResult, StepResult, UnknownCommand
from coevo.wire import ActionFold, AgentPrompt, ThoughtRule
from tests.fixture_env import GuessEnv


class SlowGuessEnv(GuessEnv):
    """cpu_heavy, so steps run on the env threads; refuses to be entered twice at once."""

    name = "slowguess"
    cpu_heavy = True
    max_steps = 1000

    def _step(self, action: str) -> StepResult:
        if getattr(self, "_busy", False):
            raise RuntimeError("two steps interleaved on one session")
        self._busy = True
        try:
            time.sleep(0.002)
            return super()._step(action)
        finally:
            self._busy = False


class ExplodingEnv(GuessEnv):
    """Any action containing 'boom' raises an unexpected error inside the env."""

    name = "exploding"

    def _step(self, action: str) -> StepResult:
        if "boom" in action:
            raise RuntimeError("secret internal detail /etc/passwd")
        return super()._step(action)


class AdminGuessEnv(GuessEnv):
    """Has one operator command that changes shared data all sessions see."""

    name = "adminguess"

    @classmethod
    def load_shared(cls, **options: Any) -> Any:
        return {"bonus": 0.0, "lock": threading.Lock()}

    @classmethod
    def admin(cls, shared: Any, command: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        if command != "set_bonus":
            raise UnknownCommand(f"no admin command {command!r}")
        with shared["lock"]:
            shared["bonus"] = float(payload["bonus"])
        return {"bonus": shared["bonus"]}

    def _step(self, action: str) -> StepResult:
        result = super()._step(action)
        if result.done:
            result.reward += self.shared["bonus"]
        return result


class LongGuessEnv(GuessEnv):
    """The fixture env with episodes that never truncate: bench/server.py steps it forever."""

    name = "longguess"
    max_steps = 10**9


class GuessV2(GuessEnv):
    """The fixture env after a rule change: same name, new version."""

    version = "2"


class SlowCatalogGuessEnv(GuessEnv):
    """A cheap env (steps inline) whose task metadata costs CPU, as apibank's does: a spin of
    `DESCRIBE_S` per task, holding the GIL. Counts its describe_task calls.

    A test may close `gate` to hold a page's computation until it opens it again; `entered` is
    set once a computation is under way. That shows where the page is computed without timing it.
    """

    name = "slowcatalog"
    SPLITS = {"train": 5000, "test": 50}
    DESCRIBE_S = 0.001
    describe_calls = 0
    gate = threading.Event()
    entered = threading.Event()

    def describe_task(self, task_id: str) -> dict[str, Any]:
        type(self).describe_calls += 1
        type(self).entered.set()
        if not type(self).gate.wait(timeout=60):
            raise TimeoutError("the test never opened SlowCatalogGuessEnv.gate")
        end = time.perf_counter() + self.DESCRIBE_S
        while time.perf_counter() < end:
            pass
        return super().describe_task(task_id)


SlowCatalogGuessEnv.gate.set()  # open unless a test closes it


class DescribedGuessEnv(GuessEnv):
    """Declares its own agent prompt and AgentGym's env_idx route style, as a new env would."""

    name = "describedguess"
    agentgym_profile = AgentGymProfile(style="env_idx")
    agent_prompt = AgentPrompt(
        instruction="Guess the hidden number between 1 and 100.",
        single_line_action=True,
        expert_thoughts=[ThoughtRule(pattern=r"^guess (\d+)$", thought="I try {0} next.")],
        expert_thought="I will {action}.",
        fold_actions=ActionFold(prefix="guess ", label="guess N", listed_last=["give up"]),
    )


class GatedRestoreEnv(GuessEnv):
    """Rebuilding a session of task train-7 waits for `gate`: a crash recovery that takes as
    long as a test wants (other sessions' recoveries must not wait behind it)."""

    name = "gatedguess"
    gate = threading.Event()

    def restore(self, state: Mapping[str, Any]) -> ResetResult | StepResult:
        if state["task_id"] == "train-7" and not self.gate.wait(timeout=30):
            raise TimeoutError("gate never opened")
        return super().restore(state)


class ProfiledGuessAgentGym(AgentGymAdapter[Any]):
    """What a made-up AgentGym guessing server answers beyond the env's results."""

    env: GuessEnv

    def reset_fields(self) -> dict[str, Any]:
        return {"task_type": f"guess/{self.env.split}"}

    def instruction_text(self) -> str | None:
        return f"Instruction: find the number in {self.env.max_steps - self.env.steps} guesses"


class ProfiledGuessEnv(GuessEnv):
    """A new AgentGym env as the recipe has it: everything its AgentGym server does differently is
    its profile's, and neither server/ nor the base class changes for it."""

    name = "profiledguess"
    agentgym_profile = AgentGymProfile(
        indices=(("test", 0), ("train", 50)),
        hello="This is environment Guess.",
        extra_fields=False,
        finished_error="The game {id} is over.",
        adapter=ProfiledGuessAgentGym,
    )
