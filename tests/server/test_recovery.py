"""SIGKILL a real `coevo serve`, restart it on the same database, and carry on as if nothing
happened — on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
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
from sqlalchemy import event, func, select
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
def coevo_serve(
    db_url: str, port: int, log: Path, env_spec: str = "tests.fixture_env:GuessEnv", *extra: str
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`coevo serve tests.fixture_env:GuessEnv` from the repo root (the documented path form)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COEVO_")}
    with log.open("ab") as sink:
        proc = subprocess.Popen(
            [*_coevo_command(), "serve", env_spec, "--port", str(port), "--db-url", db_url, *extra],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
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
    return {"observation": r.observation, "reward": r.reward, "done": r.done, "truncated": r.truncated, "info": r.info}


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
            assert episode.steps == 4 and episode.status == "success" and episode.close_reason == "closed"
            indexes = db.scalars(
                select(StepRecord.index).where(StepRecord.episode_id == episode.id).order_by(StepRecord.index)
            ).all()
            assert indexes == [1, 2, 3, 4]
    finally:
        engine.dispose()


def test_restart_in_process_edge_cases(sqlite_url: str) -> None:
    """A graceful restart keeps sessions too; stale and unknown ids are 404, a foreign-version
    session 410 with the reason."""
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
        r = c.get(f"/sessions/{live}")  # other rules: replay would lie
        assert r.status_code == 410 and "version 1" in r.json()["error"]["message"], r.text
    engine = make_engine(sqlite_url)
    try:
        with Session(engine) as db:
            stale_ep = db.scalars(select(Episode).where(Episode.session_id == stale)).one()
            assert stale_ep.close_reason == "expired_idle"
    finally:
        engine.dispose()


# ---------------------------------------------------------------------------- SIGKILL under load
async def _load_until_killed(
    base: str, proc: subprocess.Popen[bytes], sessions: int, kill_after_acks: int
) -> tuple[dict[str, list[str]], int]:
    """`sessions` clients each create a session and step it until the server dies; the server
    is SIGKILLed once `kill_after_acks` steps were acknowledged, with requests in flight.
    Returns every acknowledged session's acknowledged observations, and the number of steps
    acknowledged in all."""
    acked: dict[str, list[str]] = {}
    total = 0
    limits = httpx.Limits(max_connections=sessions, max_keepalive_connections=sessions)
    async with httpx.AsyncClient(base_url=base, timeout=10, limits=limits) as c:

        async def client(i: int) -> None:
            nonlocal total
            try:
                r = await c.post("/sessions", json={"task_id": f"train-{i % 200}", "seed": i})
                assert r.status_code == 201, r.text
                sid = r.json()["session_id"]
                acked[sid] = []
                for k in range(10**6):  # never the target, and the observation cycles with k
                    action = ("guess 0", "guess 101", "pass")[k % 3]
                    r = await c.post(f"/sessions/{sid}/step", json={"action": action})
                    assert r.status_code == 200, r.text
                    acked[sid].append(r.json()["observation"])
                    total += 1
                    if total == kill_after_acks:
                        proc.send_signal(signal.SIGKILL)
            except httpx.TransportError:
                return  # the server is gone: this request was never acknowledged

        await asyncio.gather(*(client(i) for i in range(sessions)))
    return acked, total


def test_sigkill_under_load_loses_no_acknowledged_step_or_session(db_url: str, tmp_path: Path) -> None:
    """64 clients create and step sessions at once; SIGKILL mid-load. After the restart every
    session whose create was acknowledged exists, and its recorded history holds every step
    the client saw acknowledged (the server may hold one more: committed, answer lost)."""
    port = _free_port()
    log = tmp_path / "serve.log"
    spec = "tests.server.envs:LongGuessEnv"
    with coevo_serve(db_url, port, log, spec) as (proc, base):
        acked, total = asyncio.run(_load_until_killed(base, proc, sessions=64, kill_after_acks=1500))
        proc.wait(timeout=10)
    assert total >= 1500 and len(acked) == 64

    lost_steps = lost_sessions = 0
    with coevo_serve(db_url, port, log, spec) as (_, base), httpx.Client(base_url=base, timeout=30) as c:
        for sid, observations in acked.items():
            r = c.get(f"/sessions/{sid}")
            if r.status_code == 404:
                lost_sessions += 1
                continue
            assert r.status_code == 200, r.text
            state = r.json()
            lost_steps += max(0, len(observations) - state["steps"])
            assert state["steps"] <= len(observations) + 1, "more than one unacknowledged step"
            if state["steps"] == len(observations) and observations:
                assert state["last_observation"] == observations[-1]
    assert (lost_steps, lost_sessions) == (0, 0)


# ---------------------------------------------------------------------------- unknown session ids
def _unknown_ids(n: int) -> list[str]:
    return [f"unknown{i:025d}" for i in range(n)]  # well-formed, never issued


def test_a_batch_of_unknown_ids_costs_one_query_and_no_flush(sqlite_url: str) -> None:
    from tests.server.conftest import serve

    with serve("tests.fixture_env:GuessEnv", db_url=sqlite_url) as c:
        old = c.post("/sessions", json={"task_id": "train-5", "seed": 3}).json()["session_id"]
        assert c.post(f"/sessions/{old}/step", json={"action": "guess 50"}).status_code == 200
    # A restarted server: `old` is only in the store; the writer wakes only for commits.
    with serve("tests.fixture_env:GuessEnv", db_url=sqlite_url, flush_interval_s=3600) as c:
        fresh = c.post("/sessions", json={"task_id": "train-1"}).json()["session_id"]
        writer = c.app.state.service.writer
        statements: list[str] = []
        event.listen(
            writer.engine, "before_cursor_execute", lambda _conn, _cur, statement, *_args: statements.append(statement)
        )
        flushes = 0
        real_flush = writer.flush

        def counting_flush() -> int:
            nonlocal flushes
            flushes += 1
            return real_flush()

        writer.flush = counting_flush  # type: ignore[method-assign]
        unknown = _unknown_ids(2000)
        items = [{"session_id": sid, "action": "guess 50"} for sid in unknown]
        items.insert(1000, {"session_id": fresh, "action": "guess 50"})
        results = c.post("/batch/step", json={"items": items}).json()["results"]
        assert [r["status"] for r in results] == [404] * 1000 + [200] + [404] * 1000
        assert results[1000]["result"]["observation"] == "lower"  # train-1's target is 38
        assert all(r["error"]["code"] == "session_not_found" for i, r in enumerate(results) if i != 1000)
        selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
        assert len(selects) == 1 and "IN" in selects[0]  # one query for all 2000 ids
        assert flushes == 1  # the commit of fresh's step, none for the misses

        # Asked again, the same ids cost no query at all; a recorded session still recovers.
        statements.clear()
        items = [{"session_id": sid, "action": "guess 50"} for sid in unknown]
        items.append({"session_id": old, "action": "guess 90"})
        results = c.post("/batch/step", json={"items": items}).json()["results"]
        assert [r["status"] for r in results] == [404] * 2000 + [200]
        assert results[-1]["result"] == {"session_id": old, **_reference_step("train-5", 3, ["guess 50"], "guess 90")}
        screens = [s for s in statements if " IN (" in s]
        assert len(screens) == 1 and " IN (?)" in screens[0]  # only `old` was looked up
        r = c.post(f"/sessions/{unknown[0]}/step", json={"action": "guess 1"})
        assert r.status_code == 404 and r.json()["error"]["code"] == "session_not_found"


def test_recoveries_do_not_wait_on_each_other_or_on_unknown_ids(sqlite_url: str) -> None:
    """A slow replay holds up only its own session: another session recovers and a batch of
    unknown ids is answered meanwhile (there used to be one recovery lock for all)."""
    from concurrent.futures import ThreadPoolExecutor

    from tests.server.conftest import serve
    from tests.server.envs import GatedRestoreEnv

    spec = "tests.server.envs:GatedRestoreEnv"
    with serve(spec, db_url=sqlite_url) as c:
        slow = c.post("/sessions", json={"task_id": "train-7"}).json()["session_id"]
        quick = c.post("/sessions", json={"task_id": "train-2"}).json()["session_id"]
        for sid in (slow, quick):
            assert c.post(f"/sessions/{sid}/step", json={"action": "guess 50"}).status_code == 200
    GatedRestoreEnv.gate.clear()
    with serve(spec, db_url=sqlite_url) as c, ThreadPoolExecutor(1) as pool:
        pending = pool.submit(c.post, f"/sessions/{slow}/step", json={"action": "guess 60"})
        deadline = time.time() + 10
        while not c.app.state.service._recovering and time.time() < deadline:
            time.sleep(0.01)
        assert c.app.state.service._recovering, "the slow recovery never started"
        try:
            t0 = time.perf_counter()
            items = [{"session_id": sid, "action": "guess 1"} for sid in _unknown_ids(1000)]
            items.append({"session_id": quick, "action": "guess 80"})
            results = c.post("/batch/step", json={"items": items}).json()["results"]
            assert [r["status"] for r in results] == [404] * 1000 + [200]
            assert results[-1]["result"]["observation"] == "lower"  # train-2's target is 75
            assert time.perf_counter() - t0 < 10
            assert not pending.done()  # the slow replay is still waiting at its gate
        finally:
            GatedRestoreEnv.gate.set()
        r = pending.result(timeout=30)
        assert (
            r.status_code == 200
            and r.json()["observation"] == _reference_step("train-7", 0, ["guess 50"], "guess 60")["observation"]
        )
