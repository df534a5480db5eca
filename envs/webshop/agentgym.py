"""WebShop as AgentGym's shop server presents it (`agentenv-webshop`), for its routes.

Its server answers in the env_idx style (its clients parse that shape), says "ok" to `GET /`,
keeps no end state (a step after the purchase is taken like any other) and has an
`/instruction_text` route. Its tasks are its synthetic goal list, which the env serves to
AgentGym sessions (`WebShopEnv.goals`), and its sessions have no step cap. `PROFILE` declares the
routes' part of that (envs/agentgym.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile
from coevo.envs.base import EpisodeFinished, EpisodeNotStarted

if TYPE_CHECKING:
    from coevo.envs.webshop.env import WebShopEnv


class WebShopAgentGym(AgentGymAdapter[Any]):
    """AgentGym's shop server's `/instruction_text`."""

    env: WebShopEnv

    def instruction_text(self) -> str | None:
        """The current page's `#instruction-text` heading, whose text is "Instruction: " and the
        goal on the search page, "Instruction:" and the goal on the others (WebShop's
        templates); the done page has none (AgentGym's server answers 500)."""
        env = self.env
        if env.goal is None or env.page is None:
            raise EpisodeNotStarted("call reset before /instruction_text")
        if env.where == "done":
            raise EpisodeFinished("the done page has no instruction heading")
        gap = " " if env.where == "index" else ""
        return f"Instruction:{gap}{env.goal.instruction_text}"


#: AgentGym's shop server, as its routes answer.
PROFILE = AgentGymProfile(style="env_idx", hello="ok", steps_after_done=True, adapter=WebShopAgentGym)
