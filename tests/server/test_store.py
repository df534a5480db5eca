"""The trajectory store on SQLite and PostgreSQL: what the server records, the writer's
batching, and its behaviour when the database misbehaves."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest
from sqlalchemy import event, inspect, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from coevo.store.db import create_tables, make_engine
from coevo.store.tables import Episode, StepRecord
from coevo.store.trajectories import open_episode
from coevo.store.writer import StepRow, StoreUnavailable, TrajectoryWriter, _Barrier
from tests.server.conftest import serve


def _row(
    episode: str,
    index: int,
    *,
    reward: float = 0.0,
    done: bool = False,
    info=None,
    observation: str = "obs",
    total: float = 0.0,
) -> StepRow:
    return StepRow(episode, index, f"a{index}", observation, reward, done, False, info or {}, 0.1, time.time(), total)


def _episode(writer: TrajectoryWriter, eid: str, sid: str = "s" * 32, **extra) -> None:
    now = time.time()
    writer.episode_started(
        id=eid,
        session_id=sid,
        env="guess",
        env_version="1",
        task_id="train-1",
        seed=0,
        split="train",
        status="running",
        close_reason=None,
        created_at=now,
        updated_at=now,
        closed_at=None,
        total_reward=0.0,
        steps=0,
        parent_id=extra.get("parent_id"),
        start_step=extra.get("start_step", 0),
        observation="start",
        info={"task": "t"},
    )


def test_writer_batches_and_coalesces(db_url: str) -> None:
    engine = make_engine(db_url)
    writer = TrajectoryWriter(engine, interval_s=3600)  # flush only when told
    _episode(writer, "e1")
    writer.step(_row("e1", 1))
    writer.step(_row("e1", 2, reward=1.0, done=True, total=1.0, info={"odd": {1, 2}, "n": 3}))
    assert writer.pending == 3
    assert writer.flush() == 3 and writer.pending == 0
    writer.episode_updated("e1", closed_at=time.time(), close_reason="closed")
    writer.flush()
    with Session(engine) as db:
        ep = db.get(Episode, "e1")
        assert (ep.steps, ep.status, ep.total_reward, ep.close_reason) == (2, "success", 1.0, "closed")
        steps = db.scalars(select(StepRecord).order_by(StepRecord.index)).all()
        assert [s.action for s in steps] == ["a1", "a2"]
        # A value JSON cannot hold is kept as its text rather than losing the batch.
        assert steps[1].info["n"] == 3 and isinstance(steps[1].info["odd"], str)
    engine.dispose()


def test_writer_keeps_rows_while_the_database_is_down(tmp_path) -> None:
    dead = make_engine("postgresql+psycopg://postgres@127.0.0.1:1/none", create=False)
    writer = TrajectoryWriter(dead, interval_s=3600)
    _episode(writer, "e1")
    writer.step(_row("e1", 1))
    with pytest.raises(OperationalError):  # the connection error itself: the writer keeps the rows
        writer.flush()
    assert writer.pending == 2  # nothing dropped; the next flush retries in order
    good = make_engine(f"sqlite:///{tmp_path / 'ok.db'}")
    writer.engine = good
    assert writer.flush() == 2
    with Session(good) as db:
        assert db.get(Episode, "e1") is not None and db.get(StepRecord, ("e1", 1)) is not None


def test_stored_waits_for_the_commit_and_commits_waiters_together(tmp_path: Path) -> None:
    """Group commit: while one transaction waits (here on another connection's write lock),
    nothing is acknowledged, and every request queued meanwhile is committed in the next one."""
    path = tmp_path / "store.db"
    engine = make_engine(f"sqlite:///{path}")
    commits: list[int] = []
    event.listen(engine, "commit", lambda _conn: commits.append(1))
    writer = TrajectoryWriter(engine, interval_s=3600)  # only stored() wakes it
    writer.start()
    blocker = sqlite3.connect(path)
    blocker.execute("BEGIN IMMEDIATE")  # holds the write lock

    async def requests() -> None:
        _episode(writer, "e1")
        first = writer.stored()
        await asyncio.sleep(0.3)  # the writer is inside its first transaction, waiting
        later = []
        for i in range(1, 101):
            writer.step(_row("e1", i))
            later.append(writer.stored())
        await asyncio.sleep(0.3)
        assert not first.done() and not any(f.done() for f in later)
        blocker.rollback()
        await asyncio.wait_for(asyncio.gather(first, *later), timeout=20)

    try:
        asyncio.run(requests())
    finally:
        blocker.close()
        writer.stop()
    assert len(commits) == 2  # the episode alone, then 100 steps together
    with Session(engine) as db:
        assert db.scalars(select(StepRecord.index).order_by(StepRecord.index)).all() == list(range(1, 101))
    engine.dispose()


def test_rows_are_counted_before_the_request_is_told_they_are_stored(tmp_path: Path) -> None:
    """/metrics read right after a stored answer must count that answer's rows: the writer
    counts them before it settles the waiting requests (a full test run once read 7 of 8)."""
    counted_at_settle: list[int] = []

    class Watched(TrajectoryWriter):
        @staticmethod
        def _settle(outcomes: list[tuple[_Barrier, BaseException | None]]) -> None:
            counted_at_settle.append(writer.rows_written)
            TrajectoryWriter._settle(outcomes)

    engine = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    writer = Watched(engine, interval_s=3600)
    writer.start()

    async def request() -> None:
        _episode(writer, "e1")
        writer.step(_row("e1", 1))
        await asyncio.wait_for(writer.stored(), timeout=20)

    try:
        asyncio.run(request())
    finally:
        writer.stop()
        engine.dispose()
    assert counted_at_settle[0] == 2 and writer.rows_written == 2


def test_stored_reports_an_unreachable_store_and_keeps_the_rows() -> None:
    dead = make_engine("postgresql+psycopg://postgres@127.0.0.1:1/none", create=False)
    writer = TrajectoryWriter(dead, interval_s=3600)
    writer.start()

    async def request() -> None:
        _episode(writer, "e1")
        writer.step(_row("e1", 1))
        with pytest.raises(StoreUnavailable):
            await asyncio.wait_for(writer.stored(), timeout=20)

    try:
        asyncio.run(request())
        assert writer.pending == 2  # the rows wait for the store; only the waiter was answered
    finally:
        writer._stop.set()  # not stop(): its final flush would fail on the dead store
        writer._wake.set()


def test_fsync_engines_sync_every_commit(tmp_path: Path, pg_url: str) -> None:
    """durability machine: SQLite fsyncs its WAL at each commit (synchronous FULL = 2, not the
    default NORMAL = 1), PostgreSQL sessions wait for the WAL flush."""
    from sqlalchemy import text

    for fsync, level in ((False, 1), (True, 2)):
        engine = make_engine(f"sqlite:///{tmp_path / f'{fsync}.db'}", fsync=fsync)
        with engine.connect() as conn:
            assert conn.execute(text("PRAGMA synchronous")).scalar() == level
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        engine.dispose()
    # A server (here: a connection option) whose default acknowledges commits before the flush.
    relaxed = pg_url.replace("options=", "options=-csynchronous_commit%3Doff%20")
    for fsync, setting in ((False, "off"), (True, "on")):
        engine = make_engine(relaxed, fsync=fsync)
        with engine.connect() as conn:
            assert conn.execute(text("SHOW synchronous_commit")).scalar() == setting
        engine.dispose()


def test_nul_in_observations(db_url: str) -> None:
    engine = make_engine(db_url)
    writer = TrajectoryWriter(engine, interval_s=3600)
    _episode(writer, "e1")
    writer.step(_row("e1", 1, observation="a\x00b"))
    writer.flush()
    with Session(engine) as db:
        stored = db.get(StepRecord, ("e1", 1)).observation
    assert stored in ("a\x00b", "a\ufffdb")  # PostgreSQL text cannot hold NUL
    engine.dispose()


def test_server_records_episodes_forks_and_resets(db_url: str) -> None:
    with serve(db_url=db_url) as c:
        sid = c.post("/sessions", json={"task_id": "train-5", "seed": 4}).json()["session_id"]
        for a in ("guess 50", "guess 70"):
            c.post(f"/sessions/{sid}/step", json={"action": a})
        child = c.post(f"/sessions/{sid}/fork").json()["session_id"]
        c.post(f"/sessions/{child}/step", json={"action": "guess 86"})
        c.post(f"/sessions/{sid}/reset", json={"task_id": "test-0"})
        c.post(f"/sessions/{sid}/step", json={"action": "guess 8"})
        writer = c.app.state.service.writer
        writer.flush()
        engine = writer.engine
        with Session(engine) as db:
            eps = db.scalars(select(Episode).order_by(Episode.created_at)).all()
            first, forked, second = eps
            assert (first.session_id, first.close_reason, first.steps) == (sid, "reset", 2)
            assert (forked.parent_id, forked.start_step, forked.steps) == (first.id, 2, 3)
            assert forked.status == "success" and forked.total_reward == 1.0
            assert (second.task_id, second.steps, second.status, second.closed_at) == ("test-0", 1, "success", None)
            fork_steps = db.scalars(select(StepRecord.index).where(StepRecord.episode_id == forked.id)).all()
            assert fork_steps == [3]  # inherited steps are not copied
        history = open_episode(engine, child, "guess")
        assert history is not None and history.actions == ["guess 50", "guess 70", "guess 86"]
        assert history.total_reward == 1.0 and history.last_observation == "correct"
        assert open_episode(engine, sid, "guess").actions == ["guess 8"]
        assert open_episode(engine, sid, "other-env") is None
        c.delete(f"/sessions/{child}")
        assert open_episode(engine, child, "guess") is None


def test_a_refused_row_does_not_block_the_others(db_url: str) -> None:
    engine = make_engine(db_url)
    writer = TrajectoryWriter(engine, interval_s=3600)
    _episode(writer, "e1")
    writer.step(_row("e1", 1))
    writer.flush()
    writer.step(_row("e1", 1))  # duplicate primary key: the database refuses it
    writer.step(_row("e1", 2))
    writer.step(_row("e1", 3, reward=1.0, done=True, total=1.0))
    assert writer.flush() == 2 and writer.rows_refused == 1 and writer.pending == 0
    with Session(engine) as db:
        assert db.scalars(select(StepRecord.index).order_by(StepRecord.index)).all() == [1, 2, 3]
        assert db.get(Episode, "e1").status == "success"
    engine.dispose()


# ---------------------------------------------------------------------------- concurrent creation
def _open_store(url: str, barrier, results) -> None:  # type: ignore[no-untyped-def]
    """One process of the race below: import every table module, wait, create the tables in
    one attempt, so the race tests `create_tables`' lock and not its retries (without the lock,
    every one of 5 SQLite and 2 PostgreSQL races had a process fail)."""
    import coevo.genenv.pool_tables  # noqa: F401
    import coevo.simulator.records  # noqa: F401
    import coevo.store.rollouts  # noqa: F401

    engine = make_engine(url, create=False)
    barrier.wait()
    try:
        create_tables(engine, attempts=1)
        engine.dispose()
        results.put(None)
    except Exception as exc:  # reported to the parent, which fails the test with it
        results.put(repr(exc))


def _race_to_create(url: str, processes: int = 6) -> list[str]:
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(processes), ctx.Queue()
    workers = [ctx.Process(target=_open_store, args=(url, barrier, results)) for _ in range(processes)]
    for w in workers:
        w.start()
    outcomes = [results.get(timeout=120) for _ in workers]
    for w in workers:
        w.join(timeout=30)
    return [o for o in outcomes if o]


def test_processes_opening_a_new_sqlite_store_at_once_all_succeed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`coevo demo` starts a server per env on one new SQLite file: their table creation races
    (each checks, then creates; a loser saw "table episodes already exists")."""
    url = f"sqlite:///{tmp_path / 'new.db'}"
    assert _race_to_create(url) == []
    engine = make_engine(url, create=False)
    assert {"episodes", "steps", "rollout_runs", "sim_tasks"} <= set(inspect(engine).get_table_names())
    engine.dispose()


def test_processes_opening_a_new_postgres_schema_at_once_all_succeed(pg_url: str) -> None:
    assert _race_to_create(pg_url) == []


def test_a_step_after_the_end_keeps_the_end_status(db_url: str) -> None:
    """AgentGym's shop and search servers take steps after the end (steps_after_done): such a
    step, ending nothing, must not turn a judged episode back into a running one."""
    engine = make_engine(db_url)
    writer = TrajectoryWriter(engine, interval_s=3600)
    _episode(writer, "e1")
    writer.step(_row("e1", 1, reward=1.0, done=True, total=1.0))
    writer.flush()
    writer.step(_row("e1", 2, total=1.0))  # taken after the end: not done, not truncated
    writer.flush()
    with Session(engine) as db:
        episode = db.get(Episode, "e1")
        assert (episode.steps, episode.status, episode.success) == (2, "success", True)
    engine.dispose()
