"""Uniformly random choice among the available actions: the floor every agent must beat.

Only envs that publish a finite action list (info["available_actions"]) can be played this
way; for the others the policy abstains, which ends the episode unscored rather than sending
made-up actions.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from coevo.client.policies.base import Policy, PolicyRequest, Sampling
from coevo.client.policies.prompts import prompt_for


class RandomPolicy(Policy):
    name = "random"
    batched = False

    def __init__(self, seed: int | None = 0, sampling: Sampling | None = None) -> None:
        super().__init__(sampling)
        self.rng = random.Random(seed)

    async def act(self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None) -> list[str | None]:
        replies: list[str | None] = []
        for request in requests:
            available = request.info.get("available_actions")
            if not isinstance(available, (list, tuple)) or not available:
                replies.append(None)
                continue
            action = str(self.rng.choice(available))
            prompt = request.prompt or prompt_for(request.env)
            replies.append(prompt.format_reply("I will try a random action.", action))
        return replies
