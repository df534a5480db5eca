"""The expert, played through coevo's own client on the native routes (the ReAct reply, the
client's parser, the env's step), wins the envs whose actions carry their own label or whose
reward is a change of score: the demo's leaderboard showed 0% for these until the native expert
stopped writing "Action:" twice (tool envs) and SciWorld said when a task is complete."""

from __future__ import annotations

import asyncio

import pytest

from coevo.client.heldout import HeldoutEvaluator, HeldoutSplit
from coevo.client.policies.expert import ExpertPolicy
from coevo.envs import registry
from tests.agents.servers import asgi_env_client

ENVS = ["weather", "todo", "movie", "academia", "sheet", "sciworld"]


@pytest.mark.parametrize("env", ENVS)
def test_the_expert_wins_through_the_native_routes(env: str) -> None:
    split = registry.spec(env).load().heldout_splits[0]

    async def run() -> None:
        async with asgi_env_client(env) as client:
            evaluator = HeldoutEvaluator({env: [client]}, [HeldoutSplit(env, split, 2)], seed=0)
            [row] = await evaluator.evaluate(ExpertPolicy())
            assert (row.n, row.success_rate) == (2, 1.0), row

    asyncio.run(run())
