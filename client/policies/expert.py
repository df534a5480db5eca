"""The env's privileged expert as a policy: GET /sessions/{id}/expert, wrapped as a ReAct reply.

The expert reads true state the agent never sees (where the apple is, the ground-truth call),
so its trajectories are behavioral-cloning data and an upper bound for evaluation. Its replies
have the same "Thought: ... / Action: ..." shape as a model's, with the thought produced from
the action by the env's prompt, so BC teaches the format along with the moves.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from coevo.client.policies.base import Policy, PolicyRequest, Sampling
from coevo.client.policies.prompts import prompt_for


class ExpertPolicy(Policy):
    name = "expert"
    batched = False

    async def _one(self, request: PolicyRequest) -> str | None:
        if request.session is None:
            raise ValueError("the expert policy needs the live session of each conversation")
        action = await request.session.expert_action()
        if action is None:
            return None
        prompt = request.prompt or prompt_for(request.env)
        return prompt.format_reply(prompt.expert_thought(action), action)

    async def act(self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None) -> list[str | None]:
        if len(requests) == 1:  # the engine's usual call: no task to spawn
            return [await self._one(requests[0])]
        return list(await asyncio.gather(*(self._one(r) for r in requests)))
