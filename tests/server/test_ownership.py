"""One owner per session across replicas on one store: a second server answers 409 with the
owner's address while the owner renews its heartbeat, takes the session over only once the
heartbeat has expired (a SIGKILLed owner), and the owner forgets a session another server
took; the client follows the 409. On SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import re
import signal
import time
from pathlib import Path

import httpx
from sqlalchemy import update

from coevo import wire
from coevo.client.http import AsyncEnvClient, EnvClient
from coevo.store.db import make_engine
from coevo.store.owners import SessionOwner, db_clock
from tests.server.conftest import serve
from tests.server.live import live_server
from tests.server.serve_processes import serve_process, until
from tests.server.test_recovery import _free_port

FAST = {"owner_heartbeat_s": 0.2, "owner_expiry_s": 1.0}
#: A short heartbeat and expiry for the processes a test kills (COEVO_ settings of `coevo serve`).
SHORT_EXPIRY = {"COEVO_OWNER_HEARTBEAT_S": "0.5", "COEVO_OWNER_EXPIRY_S": "4"}


def test_a_second_server_points_at_the_owner(db_url: str) -> None:
    with (
        serve(db_url=db_url, advertise_url="http://a.example:8001", **FAST) as a,
        serve(db_url=db_url, advertise_url="http://b.example:8002", **FAST) as b,
    ):
        sid = a.post("/sessions", json={"task_id": "train-5"}).json()["session_id"]
        assert a.post(f"/sessions/{sid}/step", json={"action": "guess 50"}).status_code == 200
        for r in (b.get(f"/sessions/{sid}"), b.post(f"/sessions/{sid}/step", json={"action": "guess 60"})):
            assert r.status_code == 409, r.text
            assert r.json()["error"]["code"] == "session_owned_elsewhere"
            assert r.headers["x-coevo-owner"] == "http://a.example:8001"
            assert "http://a.example:8001" in r.json()["error"]["message"]
        time.sleep(2 * FAST["owner_expiry_s"])  # A keeps renewing: B never takes it over
        assert b.get(f"/sessions/{sid}").status_code == 409
        r = a.post(f"/sessions/{sid}/step", json={"action": "guess 60"})
        assert r.status_code == 200 and r.json()["info"]["step"] == 2  # nothing recorded by B in between
        assert a.delete(f"/sessions/{sid}").status_code == 200
        assert b.get(f"/sessions/{sid}").status_code == 404
        # A stopped gracefully gives its sessions back: B takes them at once.
        other = a.post("/sessions", json={"task_id": "train-5"}).json()["session_id"]
    with serve(db_url=db_url, advertise_url="http://b.example:8002", **FAST) as b:
        assert b.get(f"/sessions/{other}").status_code == 200


def test_the_owner_forgets_a_session_another_server_took(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url, advertise_url="http://a.example:8001", **FAST) as a:
        sid = a.post("/sessions", json={"task_id": "train-5"}).json()["session_id"]
        engine = make_engine(sqlite_url)
        with engine.begin() as conn:  # what a server that took it over writes
            conn.execute(
                update(SessionOwner)
                .where(SessionOwner.session_id == sid)
                .values(server_id="http://c.example:8003", address="http://c.example:8003", heartbeat=db_clock(engine))
            )
        engine.dispose()
        answers = until(lambda: a.get(f"/sessions/{sid}"), lambda r: r.status_code != 200)
        assert answers[-1].status_code == 409 and answers[-1].headers["x-coevo-owner"] == "http://c.example:8003"


def test_a_killed_owners_sessions_are_taken_over_after_the_expiry(db_url: str, tmp_path: Path) -> None:
    port_a, port_b = _free_port(), _free_port()
    a = serve_process(db_url, port_a, tmp_path / "a.log", **SHORT_EXPIRY)
    b = serve_process(db_url, port_b, tmp_path / "b.log", **SHORT_EXPIRY)
    try:
        url_a, url_b = f"http://127.0.0.1:{port_a}", f"http://127.0.0.1:{port_b}"
        sid = httpx.post(f"{url_a}/sessions", json={"task_id": "train-5"}).json()["session_id"]
        for guess in (50, 60):
            assert httpx.post(f"{url_a}/sessions/{sid}/step", json={"action": f"guess {guess}"}).status_code == 200
        a.send_signal(signal.SIGKILL)
        a.wait(timeout=10)
        # B points at the dead owner until its heartbeat expires, then rebuilds the session.
        answers = until(
            lambda: httpx.post(f"{url_b}/sessions/{sid}/step", json={"action": "guess 70"}),
            lambda r: r.status_code != 409,
        )
        assert answers[0].status_code == 409 and answers[0].headers["x-coevo-owner"] == url_a
        assert answers[-1].status_code == 200 and answers[-1].json()["info"]["step"] == 3, answers[-1].text
        assert httpx.get(f"{url_b}/sessions/{sid}").json()["steps"] == 3
    finally:
        for proc in (a, b):
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=10)


def test_the_client_follows_the_owner(sqlite_url: str) -> None:
    with (
        live_server("guess", db_url=sqlite_url, **FAST) as url_a,
        live_server("guess", db_url=sqlite_url, **FAST) as url_b,
    ):
        with EnvClient(url_a) as client:
            session = client.create(task_id="train-5")
            session.step("guess 50")
            engine = make_engine(sqlite_url)
            with engine.begin() as conn:  # B is made the owner (as after a takeover)
                conn.execute(
                    update(SessionOwner)
                    .where(SessionOwner.session_id == session.session_id)
                    .values(server_id=url_b, address=url_b, heartbeat=db_clock(engine))
                )
            engine.dispose()
            until(lambda: httpx.get(f"{url_a}/sessions/{session.session_id}").status_code, lambda s: s == 409)
            result = session.step("guess 60")  # A answers 409, the client asks B
            assert result.info["step"] == 2 and session.url == url_b
            assert session.state().steps == 2


def test_a_batch_item_on_another_servers_session_gets_its_own_409(db_url: str) -> None:
    """A batch is not a way around the owner check: the item on A's session gets the 409 a
    single step would (same error body, the owner's address in the item), the others run, and
    nothing is recorded for A's session by B."""
    with (
        serve(db_url=db_url, advertise_url="http://a.example:8001", **FAST) as a,
        serve(db_url=db_url, advertise_url="http://b.example:8002", **FAST) as b,
    ):
        theirs = a.post("/sessions", json={"task_id": "train-5"}).json()["session_id"]
        assert a.post(f"/sessions/{theirs}/step", json={"action": "guess 50"}).status_code == 200
        mine = b.post("/sessions", json={"task_id": "train-5"}).json()["session_id"]
        single = b.post(f"/sessions/{theirs}/step", json={"action": "guess 60"})
        r = b.post(
            "/batch/step",
            json={
                "items": [
                    {"session_id": mine, "action": "guess 40"},
                    {"session_id": theirs, "action": "guess 60"},
                    {"session_id": "no-such-session", "action": "guess 1"},
                    {"session_id": mine, "action": "guess 45"},
                ]
            },
        )
        assert r.status_code == 200, r.text
        results = r.json()["results"]
        assert [(x["ok"], x["status"]) for x in results] == [(True, 200), (False, 409), (False, 404), (True, 200)]
        owned = results[1]
        assert owned["session_id"] == theirs and owned["result"] is None
        # the single route's 409 body; only the heartbeat's age in the message moves between the two
        assert owned["error"]["code"] == single.json()["error"]["code"] == "session_owned_elsewhere"
        age = re.compile(r"heartbeat is [0-9.]+ s old")
        assert age.sub("", owned["error"]["message"]) == age.sub("", single.json()["error"]["message"])
        assert owned["owner"] == single.headers["x-coevo-owner"] == "http://a.example:8001"
        assert all(x["owner"] is None for x in results if x is not owned)
        assert results[3]["result"]["info"]["step"] == 2
        # Nothing was lost or added on either side: A's session goes on from its own step.
        r = a.post(f"/sessions/{theirs}/step", json={"action": "guess 60"})
        assert r.status_code == 200 and r.json()["info"]["step"] == 2
        assert b.get(f"/sessions/{mine}").json()["steps"] == 2
        assert a.get(f"/sessions/{theirs}").json()["steps"] == 2


def test_the_client_sends_a_batch_item_on_to_its_owner(sqlite_url: str) -> None:
    with (
        live_server("guess", db_url=sqlite_url, **FAST) as url_a,
        live_server("guess", db_url=sqlite_url, **FAST) as url_b,
    ):
        with EnvClient(url_a) as client, EnvClient(url_b) as other:
            session = client.create(task_id="train-5")
            own = other.create(task_id="train-5")
            # B's client does not know A's session: it sends the item to B, which says A owns it.
            results = other.batch_step([(own.session_id, "guess 50"), (session.session_id, "guess 50")])
            assert [r.ok for r in results] == [True, True], results
            assert [r.result.info["step"] for r in results if r.result] == [1, 1]
            assert session.state().steps == 1  # stepped once, by A
            assert other.batch_step([(session.session_id, "guess 60")])[0].result.info["step"] == 2

        async def from_b() -> list[wire.BatchStepResult]:
            async with AsyncEnvClient(url_b) as async_other:
                return await async_other.batch_step([(session.session_id, "guess 70"), (own.session_id, "guess 60")])

        results = asyncio.run(from_b())
        assert [(r.ok, r.result.info["step"] if r.result else None) for r in results] == [(True, 3), (True, 2)]
