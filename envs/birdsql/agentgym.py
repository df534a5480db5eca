"""BIRD-SQL as AgentGym's SQL server presents it (`agentenv-sqlgym` over the `sqlgym` package).

Its `/create` answers a bare integer, `/reset {env_idx, item_id}` answers `[observation, null]`
and `/step {env_idx, action}` answers `{state, reward, done, info}` (the env_idx style). The
observation is SQLGym's schema paragraph, a blank line and the question (no evidence). A step
runs the action as one SQL statement; its state is the rows' Python repr (or the error text), cut
to 100 characters plus "..." when longer; the reward is 1.0 when the rows equal the gold rows as
sets; every step ends the episode (`done: true`) and its info is `{"ground_truth": <gold SQL>}`.
It keeps no end state: a further step runs and is scored again (`steps_after_done`).
`/observation` repeats the reset observation. Items 0-9427 are BIRD's train questions, 9428-
its dev questions; `GET /` answers "ok". `PROFILE` declares that for the AgentGym routes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile

if TYPE_CHECKING:
    from coevo.envs.birdsql.env import BirdSqlEnv

#: SQLGym's item ranges: BIRD's train set has 9428 questions.
DEV_START = 9428
#: AgentGym's server cuts a step's state text after this many characters.
STATE_CHARS = 100


def observation(description: str, question: str) -> str:
    """SQLGym's reset observation: the schema paragraph, a blank line, the question."""
    return f"{description}\n\n{question}"


def state_text(text: str) -> str:
    """A step's state as AgentGym's SQL server returns it."""
    return text[:STATE_CHARS] + "..." if len(text) > STATE_CHARS else text


class BirdSqlAgentGym(AgentGymAdapter[Any]):
    """SQLGym's /observation: the reset observation, whatever steps followed."""

    env: BirdSqlEnv

    def observation(self) -> str | None:
        return self.env.prompt or None


PROFILE = AgentGymProfile(
    style="env_idx",
    indices=(("train", 0), ("dev", DEV_START)),
    hello="ok",
    step_info=True,
    steps_after_done=True,
    adapter=BirdSqlAgentGym,
)
