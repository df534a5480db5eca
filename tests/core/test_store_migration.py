"""The versioned schema migration on a store written by the release before the end-status
taxonomy (fixtures/release_store.db, made by fixtures/make_release_store.py with that release's
code): every old status maps to the taxonomy where it can, to `unknown` otherwise and never to
`failure`; nothing recorded is lost; a server then serves the migrated store; reopening it runs
nothing; a store newer than this code is refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import MetaData, Table, create_engine, inspect, select, text
from sqlalchemy.orm import Session

from coevo.client.trajectory import Trajectory
from coevo.end_status import from_legacy
from coevo.store.db import Base, make_engine
from coevo.store.migrate import LATEST, stored_version, upgrade
from coevo.store.rollouts import load_trajectories
from coevo.store.tables import Episode, StepRecord
from coevo.store.task_stats import task_difficulty
from tests.server.conftest import pg_base_url, pg_url, serve  # noqa: F401  (fixtures)

RELEASE_STORE = Path(__file__).parent / "fixtures" / "release_store.db"

#: The fixture's episodes: (old status, old close_reason) -> the status after migration.
EXPECTED_EPISODES = {
    "solved": "success",  # done, success recorded
    "lost": "unknown",  # done without a success: the old release cannot say whose verdict
    "capped": "truncated",
    "left_running": "abandoned",  # closed by its client before the end
    "expired": "abandoned",
    "reset_away": "abandoned",
    "unrecoverable": "unknown",  # a failed session: not known whose fault
    "still_open": "running",  # may still be served
}
#: The fixture's trajectories, in order: old status -> (new status, end_reason).
EXPECTED_TRAJECTORIES = [
    ("success", "legacy:done"),
    ("unknown", "legacy:done"),
    ("truncated", None),
    ("truncated", "legacy:max_rounds"),
    ("unknown", "legacy:invalid_replies"),
    ("unknown", "legacy:abstained"),
    ("unknown", "legacy:error"),
]


@pytest.fixture
def old_store(tmp_path: Path) -> str:
    path = tmp_path / "store.db"
    shutil.copy(RELEASE_STORE, path)
    return f"sqlite:///{path}"


def _copy_to(release_url: str, target_url: str) -> None:
    """The release store's tables and rows on another database: each table with the columns the
    release gave it (the current definitions of those columns), every row copied as it is."""
    import coevo.genenv.pool_tables  # noqa: F401  (the tables a store holds)
    import coevo.simulator.records  # noqa: F401
    import coevo.store.owners  # noqa: F401

    source = create_engine(release_url)
    columns = {
        name: {c["name"] for c in inspect(source).get_columns(name)} for name in inspect(source).get_table_names()
    }
    old = MetaData()
    for name, present in columns.items():
        current = Base.metadata.tables.get(name)
        if current is not None:
            Table(name, old, *[c._copy() for c in current.columns if c.name in present])
    target = create_engine(target_url)
    old.create_all(target)
    with source.connect() as read, target.begin() as write:
        for table in old.sorted_tables:
            rows = [dict(r._mapping) for r in read.execute(table.select())]
            if rows:
                write.execute(table.insert(), rows)
    source.dispose()
    target.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def release_store(request: pytest.FixtureRequest, old_store: str) -> str:
    """The release store as written (SQLite), or the same tables and rows on PostgreSQL."""
    if request.param == "sqlite":
        return old_store
    url = str(request.getfixturevalue("pg_url"))
    _copy_to(old_store, url)
    return url


def test_a_release_store_migrates_to_the_taxonomy_and_keeps_its_rows(release_store: str) -> None:
    old_store = release_store
    engine = make_engine(old_store, create=False)
    assert stored_version(engine) == 0
    with engine.connect() as conn:
        steps_before = conn.execute(text('select episode_id, "index", action, reward from steps')).all()
    assert upgrade(engine) == ["_step_1_tags", "_step_2_end_status", "_step_3_task_stats", "_step_4_provenance"]
    assert stored_version(engine) == LATEST
    with Session(engine) as db:
        episodes = {e.id: e for e in db.scalars(select(Episode))}
        steps_after = [(s.episode_id, s.index, s.action, s.reward) for s in db.scalars(select(StepRecord))]
    assert {k: e.status for k, e in episodes.items()} == EXPECTED_EPISODES
    assert sorted(steps_after) == sorted(tuple(r) for r in steps_before)  # steps untouched
    assert episodes["solved"].total_reward == 1.0 and episodes["capped"].steps == 2
    rows = load_trajectories(engine)
    assert [(r["status"], r["end_reason"]) for r in rows] == EXPECTED_TRAJECTORIES
    assert all(r["status"] != "failure" for r in rows)
    assert all(r["env_version"] is None and r["score_mode"] is None for r in rows)  # not known then
    assert rows[6]["error"].startswith("ServerUnreachable")  # the old error text is kept
    # The judged episodes seed the per-task statistics (the unknown and abandoned ones do not).
    assert {(d.task_id, d.episodes, d.successes) for d in task_difficulty(engine, "guess", "expert").values()} == {
        ("train-0", 1, 1),
        ("train-2", 1, 0),
    }
    assert upgrade(engine) == []  # a second open finds nothing to do (and counts nothing twice)
    assert task_difficulty(engine, "guess", None)["train-0"].episodes == 1
    engine.dispose()


def test_a_server_serves_a_migrated_release_store(old_store: str) -> None:
    with serve(db_url=old_store) as client:  # the server opens (and migrates) the store
        sid = client.post("/sessions", json={"task_id": "train-0"}).json()["session_id"]
        assert client.post(f"/sessions/{sid}/step", json={"action": "guess 1"}).json()["done"]
        client.delete(f"/sessions/{sid}")
    engine = make_engine(old_store)
    with Session(engine) as db:
        new = db.scalars(select(Episode).where(Episode.session_id == sid)).one()
        assert (new.status, new.error) == ("success", None)
        assert db.get(Episode, "solved").status == "success"
    engine.dispose()


def test_a_store_newer_than_this_code_is_refused(old_store: str) -> None:
    engine = make_engine(old_store)
    with engine.begin() as conn:
        conn.execute(text("update schema_version set version = :v"), {"v": LATEST + 1})
    with pytest.raises(RuntimeError, match="newer than this coevo"):
        upgrade(engine)
    engine.dispose()


def test_old_client_records_read_back_in_the_taxonomy() -> None:
    """A trajectory record written before the taxonomy (a JSONL file, an old export) maps the
    same way as the stored rows: truncated stays, a done success is a success, else unknown."""
    base = {"env": "guess", "task_id": "t", "split": None, "seed": None, "policy": "p", "messages": []}
    for old, success, new in [("done", True, "success"), ("done", False, "unknown"), ("max_rounds", False,
                              "truncated"), ("error", False, "unknown"), ("truncated", False, "truncated"),
                              ("failure", False, "failure")]:  # fmt: skip
        assert Trajectory.from_record({**base, "status": old, "success": success}).status == new
        assert from_legacy("trajectories", old, success) == new
    assert from_legacy("episodes", "running", None) == "running"
    assert from_legacy("episodes", "done", None) == "unknown"
