"""`coevo rescore` as a user runs it, on a store a real server wrote: the recorded actions are
replayed under another scoring mode into the `rescores` table, the recorded steps untouched;
unjudged episodes stay unscored; the export carries status, score mode and env version; episodes
of an env version this code no longer has are refused with a clear message."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from coevo.cli.rescoring import rescore_episode
from coevo.envs import registry
from coevo.store.db import make_engine
from coevo.store.rescores import RecordedEpisode, load_rescores
from coevo.store.tables import Episode, StepRecord
from tests.agents.test_cli import coevo
from tests.server.conftest import serve

TOLERANT = "tests.tolerant_env:TolerantGuessEnv"


def _record(db_url: str) -> dict[str, str]:
    """Three episodes of train-1 (target 38) played with tolerance 0, run tag r1."""
    sessions = {}
    with serve(TOLERANT, db_url=db_url) as c:
        for name, actions in [("near_then_exact", ["guess 37", "guess 38"]), ("always_near", ["guess 37"] * 12),
                              ("left", ["guess 50"])]:  # fmt: skip
            sid = c.post("/sessions", json={"task_id": "train-1", "run": "r1"}).json()["session_id"]
            for action in actions:
                c.post(f"/sessions/{sid}/step", json={"action": action})
            c.delete(f"/sessions/{sid}")
            sessions[name] = sid
    return sessions


def test_rescore_replays_under_another_mode_and_keeps_the_steps(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    db_url = f"sqlite:///{db}"
    sessions = _record(db_url)
    engine = make_engine(db_url)
    with Session(engine) as s:
        steps_before = s.scalar(select(func.count()).select_from(StepRecord))
        recorded = {e.session_id: e for e in s.scalars(select(Episode))}
    assert [recorded[sessions[k]].status for k in ("near_then_exact", "always_near", "left")] == [
        "success", "truncated", "abandoned",
    ]  # fmt: skip

    out = tmp_path / "rescored.jsonl"
    done = coevo("rescore", TOLERANT, "-o", "tolerance=1", "--db-url", db_url, "--run", "r1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "changed verdicts" in done.stdout and "re-scored as tolerance=1" in done.stdout
    rows = load_rescores(engine, "tolerance=1")
    by_session = {sid: rows[recorded[sid].id] for sid in sessions.values()}
    near, always, left = (by_session[sessions[k]] for k in ("near_then_exact", "always_near", "left"))
    assert (near.status, near.total_reward, near.success) == ("success", 1.0, True)  # ends at the first guess now
    assert (always.status, always.total_reward, always.success) == ("success", 1.0, True)  # was truncated
    assert (left.status, left.total_reward, left.success) == ("abandoned", None, None)  # no verdict to re-score
    with Session(engine) as s:
        assert s.scalar(select(func.count()).select_from(StepRecord)) == steps_before
        assert s.get(Episode, recorded[sessions["always_near"]].id).status == "truncated"  # the record stands
    exported = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["env_version"], r["rescored"]["score_mode"]) for r in exported} == {("1", "tolerance=1")}
    assert sorted((r["recorded"]["status"], r["rescored"]["status"]) for r in exported) == [
        ("abandoned", "abandoned"), ("success", "success"), ("truncated", "success"),
    ]  # fmt: skip

    # Re-running a mode replaces its rows; the default mode reproduces what was recorded.
    assert coevo("rescore", TOLERANT, "-o", "tolerance=1", "--db-url", db_url).returncode == 0
    assert len(load_rescores(engine, "tolerance=1")) == 3
    assert coevo("rescore", TOLERANT, "--db-url", db_url).returncode == 0
    same = load_rescores(engine, "")
    assert same[recorded[sessions["always_near"]].id].status == "truncated"
    assert same[recorded[sessions["near_then_exact"]].id].total_reward == 1.0

    # An episode of a version this code no longer has: the whole command is refused.
    with engine.begin() as conn:
        conn.execute(
            text("update episodes set env_version = '0' where id = :id"), {"id": recorded[sessions["left"]].id}
        )
    refused = coevo("rescore", TOLERANT, "-o", "tolerance=2", "--db-url", db_url)
    assert refused.returncode == 2 and "version(s) 0" in " ".join(refused.stdout.split())
    assert load_rescores(engine, "tolerance=2") == {}
    engine.dispose()


def test_actions_that_no_longer_end_the_episode_rescore_unknown() -> None:
    env = registry.make(TOLERANT)
    episode = RecordedEpisode("e", "tolerant_guess", "1", "train-1", 0, None, None, "success", 1.0, True, ["guess 50"])
    row = rescore_episode(env, episode)
    assert (row["status"], row["total_reward"], row["success"]) == ("unknown", None, None)
    assert "did not end the episode" in row["error"]


def test_bfcl_replies_rescored_with_the_lenient_decoder(tmp_path: Path) -> None:
    """A real env's scoring modes: BFCL's expert call wrapped in a code fence fails BFCL's own
    decoder (as recorded) and passes the lenient one (re-scored), the recorded steps untouched."""
    db_url = f"sqlite:///{tmp_path / 'bfcl.db'}"
    with serve("bfcl", db_url=db_url) as c:
        sid = c.post("/sessions", json={"split": "simple_python", "seed": 3, "run": "fenced"}).json()["session_id"]
        expert = c.get(f"/sessions/{sid}/expert").json()["action"]
        step = c.post(f"/sessions/{sid}/step", json={"action": f"```python\n{expert}\n```"}).json()
        assert step["done"] and step["reward"] == 0.0
        c.delete(f"/sessions/{sid}")
    done = coevo("rescore", "bfcl", "-o", "decoder=lenient", "--db-url", db_url, "--run", "fenced")
    assert done.returncode == 0, done.stderr
    engine = make_engine(db_url)
    with Session(engine) as s:
        episode = s.scalars(select(Episode).where(Episode.session_id == sid)).one()
        steps = s.scalars(select(StepRecord).where(StepRecord.episode_id == episode.id)).all()
    assert (episode.status, episode.total_reward) == ("failure", 0.0)
    rescored = load_rescores(engine, "decoder=lenient")[episode.id]
    assert (rescored.status, rescored.total_reward, rescored.success) == ("success", 1.0, True)
    assert [s.action for s in steps] == [f"```python\n{expert}\n```"]
    engine.dispose()
