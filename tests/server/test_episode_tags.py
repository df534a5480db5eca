"""The episode columns the UI filters on (policy, run, success): written by the server from what
a client passes on create and what the env reports, and added in place to a store written
before they existed."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import MetaData, Table, create_engine, inspect, select
from sqlalchemy.orm import Session

from coevo.store.db import make_engine
from coevo.store.migrate import ADDED_EPISODE_COLUMNS, upgrade
from coevo.store.tables import Episode
from tests.server.conftest import serve


def _old_store(url: str) -> None:
    """An `episodes` table as the release before these columns created it, with one episode."""
    old = MetaData()
    columns = [c._copy() for c in Episode.__table__.columns if c.name not in ADDED_EPISODE_COLUMNS]
    table = Table("episodes", old, *columns)
    engine = create_engine(url)
    old.create_all(engine)
    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with engine.begin() as conn:
        conn.execute(
            table.insert(),
            {
                "id": "e0", "session_id": "s0", "env": "guess", "env_version": "1", "task_id": "train-3", "seed": 0,
                "split": "train", "status": "done", "close_reason": "closed", "created_at": at, "updated_at": at,
                "closed_at": at, "total_reward": 1.0, "steps": 2, "parent_id": None, "start_step": 0,
                "observation": "start", "info": {},
            },
        )  # fmt: skip
    engine.dispose()


def test_tags_and_success_are_recorded(db_url: str) -> None:
    with serve(db_url=db_url) as client:
        tagged = client.post("/sessions", json={"task_id": "train-0", "policy": "expert@1", "run": "r1"}).json()
        sid = tagged["session_id"]
        client.post(f"/sessions/{sid}/step", json={"action": "guess 50"})
        client.post(f"/sessions/{sid}/step", json={"action": "guess 1"})  # target of train-0 is 1
        fork = client.post(f"/sessions/{sid}/fork").json()
        client.post(f"/sessions/{sid}/reset", json={"task_id": "train-1"})
        plain = client.post("/sessions", json={"task_id": "train-2"}).json()
        client.post(f"/sessions/{plain['session_id']}/step", json={"action": "guess 3"})
        assert client.post("/sessions", json={"policy": "x" * 257}).status_code == 422
    engine = make_engine(db_url)
    with Session(engine) as db:
        rows = {(e.session_id, e.task_id): e for e in db.scalars(select(Episode))}
    first = rows[(sid, "train-0")]
    assert (first.policy, first.run, first.status, first.success) == ("expert@1", "r1", "success", True)
    # The session's later episodes (a reset, a fork) keep its tags.
    assert (rows[(sid, "train-1")].policy, rows[(sid, "train-1")].success) == ("expert@1", None)
    assert rows[(fork["session_id"], "train-0")].run == "r1"
    untagged = rows[(plain["session_id"], "train-2")]
    assert (untagged.policy, untagged.run, untagged.status, untagged.success) == (None, None, "running", None)
    engine.dispose()


def test_an_old_store_gains_the_columns_and_keeps_its_rows(db_url: str) -> None:
    _old_store(db_url)
    with serve(db_url=db_url) as client:  # the server opens (and migrates) the old store
        sid = client.post("/sessions", json={"task_id": "train-0", "policy": "p"}).json()["session_id"]
        client.post(f"/sessions/{sid}/step", json={"action": "guess 1"})
    engine = make_engine(db_url)
    columns = {c["name"] for c in inspect(engine).get_columns("episodes")}
    indexes = {i["name"] for i in inspect(engine).get_indexes("episodes")}
    assert {"policy", "run", "success", "error"} <= columns
    assert {"ix_episodes_created", "ix_episodes_env_created", "ix_episodes_policy_created"} <= indexes
    with Session(engine) as db:
        old = db.get(Episode, "e0")
        assert old is not None and (old.task_id, old.total_reward, old.policy, old.success) == (
            "train-3",
            1.0,
            None,
            None,
        )
        # "done" without a recorded success says nothing of the verdict: unknown, never failure.
        assert old.status == "unknown"
        new = db.scalars(select(Episode).where(Episode.session_id == sid)).one()
        assert (new.policy, new.success) == ("p", True)
    assert upgrade(engine) == []  # a second open finds nothing to do
    engine.dispose()
