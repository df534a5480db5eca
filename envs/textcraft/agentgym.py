"""TextCraft as AgentGym's TextCraft server (`agentenv-textcraft`) answers, for its routes.

Its routes are the id style: /create starts an episode and answers `{"id", "observation",
"done", "reward"}` (its client reads the observation there); /reset takes `data_idx` and answers
`{"id", "observation", "done": false, "reward": 0}`; /step answers `{"observation", "reward",
"done"}`. Ours add fields its client ignores (`available_actions`, `task_id`, the step's
`info`). Its server takes any integer index modulo its 544 tasks; ours answers 404 for one past
them (docs/textcraft.md). It keeps no end state (a step after the goal is taken like any other)
and its `GET /` answers "This is environment TextCraft.". `PROFILE` declares that for the
AgentGym routes (envs/agentgym.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile

if TYPE_CHECKING:
    from coevo.envs.textcraft.env import TextCraftEnv


class TextCraftAgentGym(AgentGymAdapter[Any]):
    """AgentGym's indices: one per task, in its order (not our splits' order)."""

    env: TextCraftEnv

    def task(self, index: int) -> str:
        return self.env.task_for_index(index)


#: AgentGym's TextCraft server.
PROFILE = AgentGymProfile(
    style="id",
    hello="This is environment TextCraft.",
    steps_after_done=True,
    adapter=TextCraftAgentGym,
)
