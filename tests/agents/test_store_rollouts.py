"""Agent-side trajectories in the SQL store: SQLite always, PostgreSQL when it is reachable."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest

from coevo.client.policies.expert import ExpertPolicy
from coevo.client.rollout import RolloutEngine
from coevo.client.trajectory import EpisodeSpec, Trajectory
from coevo.store import make_engine
from coevo.store.rollouts import create_run, finish_run, list_runs, load_trajectories, save_trajectories
from tests.agents.servers import asgi_env_client

POSTGRES = os.environ.get("COEVO_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _trajectories() -> list[Trajectory]:
    async def go() -> list[Trajectory]:
        async with asgi_env_client("guess") as client:
            specs = [EpisodeSpec("guess", split="test", seed=2**40 + i) for i in range(3)]  # seeds beyond 32 bits
            return await RolloutEngine(ExpertPolicy(), {"guess": client}).run(specs)

    return asyncio.run(go())


def _urls() -> list[str]:
    urls = ["sqlite://"]
    try:
        import sqlalchemy

        engine = sqlalchemy.create_engine(POSTGRES)
        with engine.connect():
            urls.append(POSTGRES)
    except Exception:
        pass
    return urls


@pytest.mark.parametrize("url", _urls())
def test_runs_and_trajectories_round_trip(url: str) -> None:
    trajectories = _trajectories()
    engine = make_engine(url)
    name = f"test-{uuid.uuid4().hex}"
    run_id = create_run(engine, name=name, kind="eval", policy="expert", config={"n": 3})
    assert save_trajectories(engine, run_id, [t.to_record() for t in trajectories]) == 3
    finish_run(engine, run_id, {"success_rate": 1.0})
    back = [Trajectory.from_record(r) for r in load_trajectories(engine, run_id=run_id)]
    assert [t.to_agentgym() for t in back] == [t.to_agentgym() for t in trajectories]
    assert [t.seed for t in back] == [2**40 + i for i in range(3)]
    assert [t.turns for t in back] == [t.turns for t in trajectories]
    assert load_trajectories(engine, run_id=run_id, success=False) == []
    (run,) = [r for r in list_runs(engine, kind="eval") if r["name"] == name]
    assert run["summary"] == {"success_rate": 1.0} and run["finished_at"] is not None
