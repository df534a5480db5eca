"""SIGKILL a real `coevo serve`, restart it on the same database, and carry on as if nothing
happened — on SQLite and on PostgreSQL."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from coevo.store.db import make_engine
from coevo.store.tables import Episode, StepRecord
from tests.fixture_env import GuessEnv

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _coevo_command() -> list[str]:
    script = Path(sys.executable).parent / "coevo"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from coevo.cli import main; sys.exit(main())"]


@contextmanager
def coevo_serve(db_url: str, port: int, log: Path) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`coevo serve tests.fixture_env:GuessEnv` from the repo root (the documented path form)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COEVO_")}
    with log.open("ab") as sink:
        proc = subprocess.Popen(
            [*_coevo_command(), "serve", "tests.fixture_env:GuessEnv", "--port", str(port),
             "--db-url", db_url],
            cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"coevo serve exited: {log.read_text(errors='replace')[-2000:]}")
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.time() > deadline:
                raise TimeoutError("coevo serve did not become healthy")
            time.sleep(0.1)
        yield proc, base
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def _reference_step(task_id: str, seed: int, history: list[str], action: str) -> dict[str, Any]:
    """What the step returns on a server that never crashed: a fresh env, same history."""
    env = GuessEnv()
    env.restore({"task_id": task_id, "seed": seed, "actions": history})
    r = env.step(action)
    return {"observation": r.observation, "reward": r.reward, "done": r.done,
            "truncated": r.truncated, "info": r.info}


def _wait_recorded(db_url: str, expected_steps: int) -> None:
    """The writer flushes every ~50 ms; SIGKILL only after it has (the documented window)."""
    engine = make_engine(db_url)
    try:
        deadline = time.time() + 10
        while time.time() < deadline:
            with Session(engine) as db:
                if db.scalar(select(func.count()).select_from(StepRecord)) >= expected_steps:
                    return
            time.sleep(0.05)
        raise TimeoutError("steps never reached the store")
    finally:
        engine.dispose()


def _step(c: httpx.Client, sid: str, action: str) -> dict[str, Any]:
    r = c.post(f"/sessions/{sid}/step", json={"action": action})
    assert r.status_code == 200, r.text
    body = r.json()
    body.pop("session_id")
    return body


def test_sigkill_and_restart_recovers_sessions(db_url: str, tmp_path: Path) -> None:
    port = _free_port()
    log = tmp_path / "serve.log"
    with coevo_serve(db_url, port, log) as (proc, base), httpx.Client(base_url=base, timeout=10) as c:
        a = c.post("/sessions", json={"task_id": "train-5", "seed": 3}).json()["session_id"]  # target 86
        _step(c, a, "guess 50")
        _step(c, a, "guess 70")
        fork = c.post(f"/sessions/{a}/fork").json()["session_id"]
        _step(c, fork, "guess 95")
        closed = c.post("/sessions", json={"seed": 1}).json()["session_id"]
        assert c.delete(f"/sessions/{closed}").status_code == 200
        r = c.post("/sessions", json={"task_id": "test-3"}).json()["session_id"]
        _step(c, r, "guess 10")
        assert c.post(f"/sessions/{r}/reset", json={"task_id": "train-1", "seed": 8}).status_code == 200
        _step(c, r, "guess 20")
        _wait_recorded(db_url, expected_steps=5)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    with coevo_serve(db_url, port, log) as (_, base), httpx.Client(base_url=base, timeout=10) as c:
        assert c.get("/health").json()["sessions"] == 0  # nothing rebuilt eagerly
        state = c.get(f"/sessions/{a}").json()
        assert (state["task_id"], state["seed"], state["steps"]) == ("train-5", 3, 2)
        assert state["last_observation"] == "higher"
        assert _step(c, a, "guess 90") == _reference_step("train-5", 3, ["guess 50", "guess 70"], "guess 90")
        assert _step(c, a, "guess 86")["done"] is True

        # The fork rebuilt from its parent's first two steps plus its own.
        expected = _reference_step("train-5", 3, ["guess 50", "guess 70", "guess 95"], "guess 80")
        assert _step(c, fork, "guess 80") == expected
        assert c.get(f"/sessions/{fork}").json()["steps"] == 4

        # A reset session continues its newest episode; a closed one stays closed.
        assert _step(c, r, "guess 30") == _reference_step("train-1", 8, ["guess 20"], "guess 30")
        gone = c.post(f"/sessions/{closed}/step", json={"action": "guess 1"})
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "session_not_found"
        assert "coevo_sessions_recovered_total" in c.get("/metrics").text
        assert c.delete(f"/sessions/{a}").status_code == 200

    # The store has one gap-free history per episode.
    engine = make_engine(db_url)
    try:
        with Session(engine) as db:
            episode = db.scalars(select(Episode).where(Episode.session_id == a)).one()
            assert episode.steps == 4 and episode.status == "done" and episode.close_reason == "closed"
            indexes = db.scalars(select(StepRecord.index).where(StepRecord.episode_id == episode.id)
                                 .order_by(StepRecord.index)).all()
            assert indexes == [1, 2, 3, 4]
    finally:
        engine.dispose()


def test_restart_in_process_edge_cases(sqlite_url: str) -> None:
    """A graceful restart keeps sessions too; stale, foreign-version and unknown ids are 404."""
    from tests.server.conftest import serve

    with serve("tests.fixture_env:GuessEnv", db_url=sqlite_url) as c:
        live = c.post("/sessions", json={"task_id": "train-2"}).json()["session_id"]
        c.post(f"/sessions/{live}/step", json={"action": "guess 50"})
        stale = c.post("/sessions", json={"seed": 5}).json()["session_id"]
    with serve("tests.fixture_env:GuessEnv", db_url=sqlite_url, idle_ttl_s=3600) as c:
        r = c.post(f"/sessions/{live}/step", json={"action": "guess 80"})
        assert r.status_code == 200 and r.json()["observation"] == "lower"  # target 75
        assert c.get("/sessions/" + "Z" * 32).status_code == 404
    # Pretend a long pause: the stale session's last activity is older than the idle TTL.
    with serve("tests.fixture_env:GuessEnv", db_url=sqlite_url, idle_ttl_s=0.001) as c:
        time.sleep(0.01)
        r = c.get(f"/sessions/{stale}")
        assert r.status_code == 404 and "expired" in r.json()["error"]["message"]
    with serve("tests.server.envs:GuessV2", db_url=sqlite_url) as c:
        assert c.get(f"/sessions/{live}").status_code == 404  # other rules: replay would lie
    engine = make_engine(sqlite_url)
    try:
        with Session(engine) as db:
            stale_ep = db.scalars(select(Episode).where(Episode.session_id == stale)).one()
            assert stale_ep.close_reason == "expired_idle"
    finally:
        engine.dispose()
