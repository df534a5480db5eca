"""Nothing acknowledged that is not stored: a record the store refuses fails its session (never a
later step acknowledged over the hole), and a session whose stored history has a gap answers
410 with the reason, on every request, instead of 500 forever.

The store refuses rows for real: a SQLite trigger aborts the insert, as a constraint would."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, delete, select, text, update
from sqlalchemy.orm import Session

from coevo.store.db import make_engine
from coevo.store.tables import Episode, StepRecord
from tests.server.conftest import serve


def _refuse_action(engine: Engine, action: str) -> None:
    with engine.begin() as conn:
        conn.execute(
            text(
                "CREATE TRIGGER refuse_action BEFORE INSERT ON steps "
                f"WHEN NEW.action = '{action}' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
            )
        )


def _error(r: Any, status: int, code: str) -> str:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.json()["error"]["code"] == code, r.text
    return str(r.json()["error"]["message"])


def _stored_actions(engine: Engine, session_id: str) -> tuple[list[str], str | None]:
    with Session(engine) as db:
        episode = db.scalars(select(Episode).where(Episode.session_id == session_id)).one()
        actions = db.scalars(
            select(StepRecord.action).where(StepRecord.episode_id == episode.id).order_by(StepRecord.index)
        ).all()
        return list(actions), episode.close_reason


def test_a_refused_step_fails_its_session_and_nothing_after_it_is_acknowledged(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url) as c:
        engine = c.app.state.service.writer.engine
        sid = c.post("/sessions", json={"task_id": "train-5"}).json()["session_id"]
        other = c.post("/sessions", json={"task_id": "train-5"}).json()["session_id"]
        assert c.post(f"/sessions/{sid}/step", json={"action": "guess 50"}).status_code == 200
        _refuse_action(engine, "guess 13")
        message = _error(c.post(f"/sessions/{sid}/step", json={"action": "guess 13"}), 500, "store_refused")
        assert "refused" in message and sid in message
        # Every later request on it says why, with 410; nothing more is acknowledged.
        for r in (
            c.post(f"/sessions/{sid}/step", json={"action": "guess 60"}),
            c.get(f"/sessions/{sid}"),
            c.post("/step", json={"id": sid, "action": "guess 60"}),
            c.post(f"/sessions/{sid}/reset", json={}),
        ):
            assert "refused" in _error(r, 410, "session_failed")
        # The others carry on, and the store holds exactly what was acknowledged.
        assert c.post(f"/sessions/{other}/step", json={"action": "guess 60"}).status_code == 200
        c.app.state.service.writer.flush()
        assert _stored_actions(engine, sid) == (["guess 50"], "store_refused")
        assert _stored_actions(engine, other) == (["guess 60"], None)
        assert c.get("/health").json()["sessions"] == 1


def test_a_refused_batch_item_fails_only_its_own_session(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url) as c:
        engine = c.app.state.service.writer.engine
        a, b = (c.post("/sessions", json={"task_id": "train-5"}).json()["session_id"] for _ in range(2))
        _refuse_action(engine, "guess 13")
        items = [{"session_id": a, "action": "guess 13"}, {"session_id": b, "action": "guess 14"}]
        results = c.post("/batch/step", json={"items": items}).json()["results"]
        assert (results[0]["ok"], results[0]["status"], results[0]["error"]["code"]) == (False, 500, "store_refused")
        assert results[1]["ok"] and results[1]["status"] == 200
        _error(c.get(f"/sessions/{a}"), 410, "session_failed")
        assert c.get(f"/sessions/{b}").json()["steps"] == 1
        c.app.state.service.writer.flush()
        assert _stored_actions(engine, b) == (["guess 14"], None)


def test_a_refused_reset_fails_the_session(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url) as c:
        engine = c.app.state.service.writer.engine
        sid = c.post("/sessions", json={"task_id": "train-5"}).json()["session_id"]
        with engine.begin() as conn:
            conn.execute(
                text(
                    "CREATE TRIGGER refuse_episode BEFORE INSERT ON episodes WHEN NEW.task_id = 'test-3' "
                    "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
                )
            )
        _error(c.post(f"/sessions/{sid}/reset", json={"task_id": "test-3"}), 500, "store_refused")
        _error(c.post(f"/sessions/{sid}/step", json={"action": "guess 1"}), 410, "session_failed")
        # A create whose episode is refused leaves no session behind.
        _error(c.post("/sessions", json={"task_id": "test-3"}), 500, "store_refused")
        assert c.get("/health").json()["sessions"] == 0


def _session_with_steps(db_url: str, actions: list[str]) -> str:
    """A session recorded by a server that then went away with it still open."""
    with serve(db_url=db_url) as c:
        sid = str(c.post("/sessions", json={"task_id": "train-5"}).json()["session_id"])
        for action in actions:
            assert c.post(f"/sessions/{sid}/step", json={"action": action}).status_code == 200
    return sid


def _episode_of(engine: Engine, sid: str) -> Episode:
    with Session(engine) as db:
        return db.scalars(select(Episode).where(Episode.session_id == sid)).one()


def test_recovering_a_session_with_a_gap_answers_410_with_the_reason(db_url: str) -> None:
    sid = _session_with_steps(db_url, ["guess 10", "guess 20", "guess 30"])
    engine = make_engine(db_url)
    episode = _episode_of(engine, sid)
    with engine.begin() as conn:
        conn.execute(delete(StepRecord).where(StepRecord.episode_id == episode.id, StepRecord.index == 2))
    with serve(db_url=db_url) as c:
        for _ in range(3):  # the same answer every time, never a 500
            message = _error(c.post(f"/sessions/{sid}/step", json={"action": "guess 40"}), 410, "session_failed")
            assert "gap" in message and "step 2" in message, message
        _error(c.get(f"/sessions/{sid}"), 410, "session_failed")
    assert _episode_of(engine, sid).close_reason == "unrecoverable"
    with serve(db_url=db_url) as c:  # closed in the store: no server replays it again
        _error(c.get(f"/sessions/{sid}"), 404, "session_not_found")
    engine.dispose()


def test_recovering_a_session_missing_its_last_steps_answers_410(sqlite_url: str) -> None:
    sid = _session_with_steps(sqlite_url, ["guess 10", "guess 20", "guess 30"])
    engine = make_engine(sqlite_url)
    episode = _episode_of(engine, sid)
    with engine.begin() as conn:
        conn.execute(delete(StepRecord).where(StepRecord.episode_id == episode.id, StepRecord.index == 3))
    with serve(db_url=sqlite_url) as c:
        assert "step 3" in _error(c.get(f"/sessions/{sid}"), 410, "session_failed")
    engine.dispose()


def test_a_session_recorded_by_another_env_version_answers_410(sqlite_url: str) -> None:
    sid = _session_with_steps(sqlite_url, ["guess 10"])
    engine = make_engine(sqlite_url)
    with engine.begin() as conn:
        conn.execute(update(Episode).where(Episode.session_id == sid).values(env_version="0-old"))
    with serve(db_url=sqlite_url) as c:
        assert "version 0-old" in _error(c.get(f"/sessions/{sid}"), 410, "session_failed")
    engine.dispose()
