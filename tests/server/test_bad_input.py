"""Hostile and careless clients: every case gets the right status, the JSON error shape, and
leaves the store consistent."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from coevo.store.tables import Episode, StepRecord
from tests.server.conftest import serve

SLOW = "tests.server.envs:SlowGuessEnv"


def _error(r: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    if code is not None:
        assert body["error"]["code"] == code, body
    return body["error"]


def _create(c: TestClient, **body: Any) -> str:
    r = c.post("/sessions", json=body)
    assert r.status_code == 201, r.text
    return r.json()["session_id"]


def _store(c: TestClient) -> tuple[list[Episode], list[StepRecord]]:
    writer = c.app.state.service.writer
    writer.flush()
    with Session(writer.engine) as db:
        return (
            list(db.scalars(select(Episode))),
            list(db.scalars(select(StepRecord).order_by(StepRecord.episode_id, StepRecord.index))),
        )


def test_malformed_json_and_wrong_types(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url) as c:
        sid = _create(c, seed=1)
        headers = {"content-type": "application/json"}
        _error(c.post(f"/sessions/{sid}/step", content=b'{"action": "gue', headers=headers), 422, "malformed_json")
        _error(c.post(f"/sessions/{sid}/step", json={"action": 42}), 422, "invalid_request")
        _error(c.post(f"/sessions/{sid}/step", json={"act": "guess 5"}), 422, "invalid_request")
        _error(c.post(f"/sessions/{sid}/step", json={"action": "guess 5", "extra": 1}), 422)
        _error(c.post(f"/sessions/{sid}/step", json=["guess 5"]), 422)
        _error(c.post("/sessions", json={"seed": "seven"}), 422, "invalid_request")
        _error(c.post("/sessions", json={"seed": -1}), 422, "invalid_request")
        _error(c.post("/sessions", json={"task_id": 5}), 422)
        _error(c.get("/tasks", params={"limit": 0}), 422)
        _error(c.get("/tasks", params={"offset": "x"}), 422)
        _error(c.post("/batch/step", json=[{"session_id": sid, "action": "guess 5"}]), 422)
        _error(c.post("/batch/step", json={"items": "no"}), 422)
        _error(c.post("/batch/step", content=b'{"items": [', headers=headers), 422, "malformed_json")
        _error(c.post(f"/sessions/{sid}/step", json={"action": "guess\x005"}), 422)
        # None of that touched the session.
        state = c.get(f"/sessions/{sid}").json()
        assert state["steps"] == 0
        episodes, steps = _store(c)
        assert len(episodes) == 1 and steps == []


def test_huge_actions_and_bodies(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url, max_action_bytes=64 * 1024) as c:
        sid = _create(c, seed=1)
        limit = 64 * 1024
        ok = c.post(f"/sessions/{sid}/step", json={"action": "x" * limit})
        assert ok.status_code == 200 and ok.json()["observation"].startswith("Invalid action")
        _error(c.post(f"/sessions/{sid}/step", json={"action": "x" * (limit + 1)}), 413, "action_too_large")
        # Counted in UTF-8 bytes, not characters: 32769 two-byte characters are over the limit.
        _error(c.post(f"/sessions/{sid}/step", json={"action": "é" * (limit // 2 + 1)}), 413, "action_too_large")
        # Bodies over 1 MiB are refused before parsing, declared or streamed.
        big = b'{"action": "' + b"x" * (1024 * 1024) + b'"}'
        _error(
            c.post(f"/sessions/{sid}/step", content=big, headers={"content-type": "application/json"}),
            413,
            "body_too_large",
        )

        def chunks():
            yield b'{"action": "'
            for _ in range(40):
                yield b"y" * 32768
            yield b'"}'

        _error(
            c.post(f"/sessions/{sid}/step", content=chunks(), headers={"content-type": "application/json"}),
            413,
            "body_too_large",
        )
        _error(c.post("/batch/step", content=big, headers={"content-type": "application/json"}), 413)
        # The session is intact: one step (the accepted 64 KiB action), then normal play.
        assert c.get(f"/sessions/{sid}").json()["steps"] == 1
        assert c.post(f"/sessions/{sid}/step", json={"action": "guess 50"}).status_code == 200
        episodes, steps = _store(c)
        assert [s.index for s in steps] == [1, 2]
        assert len(steps[0].action) == limit
        metrics = c.get("/metrics").text
        assert 'coevo_errors_total{code="action_too_large",env="guess",status="413"} 2.0' in metrics
        assert 'code="body_too_large"' in metrics


def test_unknown_and_expired_and_closed_ids(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url, idle_ttl_s=0.3, reap_interval_s=0.05) as c:
        for bad in ("nope", "x" * 200, "has%20space", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"):
            _error(c.post(f"/sessions/{bad}/step", json={"action": "guess 1"}), 404)
            _error(c.get(f"/sessions/{bad}"), 404, "session_not_found")
        _error(c.delete("/sessions/nope"), 404, "session_not_found")
        _error(c.post("/sessions/nope/fork"), 404)
        _error(c.get("/sessions/nope/expert"), 404)
        _error(c.post("/sessions/nope/reset", json={}), 404)

        idle = _create(c, seed=2)
        kept = _create(c, seed=3)
        deadline = time.time() + 5
        while time.time() < deadline and c.get("/health").json()["sessions"] > 1:
            # Keep `kept` busy; `idle` is left alone past its TTL.
            c.post(f"/sessions/{kept}/step", json={"action": "hello"})
            time.sleep(0.05)
        msg = _error(c.post(f"/sessions/{idle}/step", json={"action": "guess 1"}), 404, "session_not_found")["message"]
        assert "expired" in msg
        assert c.get(f"/sessions/{kept}").status_code == 200

        closed = _create(c, seed=4)
        assert c.delete(f"/sessions/{closed}").status_code == 200
        msg = _error(c.post(f"/sessions/{closed}/step", json={"action": "guess 1"}), 404)["message"]
        assert "closed" in msg
        _error(c.delete(f"/sessions/{closed}"), 404)

        episodes, _ = _store(c)
        by_session = {e.session_id: e for e in episodes}
        assert by_session[idle].close_reason == "expired_idle" and by_session[idle].closed_at
        assert by_session[closed].close_reason == "closed"
        assert by_session[kept].closed_at is None
        assert "coevo_sessions_expired_total" in c.get("/metrics").text


def test_max_age_releases_busy_sessions(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url, max_age_s=3600, idle_ttl_s=0) as c:
        sid = _create(c, seed=1)
        service = c.app.state.service
        assert c.portal.call(service.reap, time.time() + 10) == 0
        assert c.portal.call(service.reap, time.time() + 3601) == 1
        assert "expired" in _error(c.get(f"/sessions/{sid}"), 404)["message"]


def test_concurrent_steps_on_one_session_are_serialized(sqlite_url: str) -> None:
    n = 48
    with serve(SLOW, db_url=sqlite_url) as c:
        sid = _create(c, task_id="train-0")  # target 1: "guess 100" is always "lower"
        with ThreadPoolExecutor(16) as pool:
            responses = list(
                pool.map(lambda _: c.post(f"/sessions/{sid}/step", json={"action": "guess 100"}), range(n))
            )
        assert all(r.status_code == 200 for r in responses), [r.text for r in responses][:3]
        indexes = sorted(r.json()["info"]["step"] for r in responses)
        assert indexes == list(range(1, n + 1))
        assert c.get(f"/sessions/{sid}").json()["steps"] == n
        _, steps = _store(c)
        assert [s.index for s in steps] == list(range(1, n + 1))
        assert all(s.action == "guess 100" and s.observation == "lower" for s in steps)


def test_capacity_exhaustion(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url, max_sessions=3, retry_after_s=7) as c:
        sids = [_create(c, seed=i) for i in range(3)]
        r = c.post("/sessions", json={"seed": 9})
        _error(r, 429, "capacity_exceeded")
        assert r.headers["retry-after"] == "7"
        _error(c.post(f"/sessions/{sids[0]}/fork"), 429)
        r = c.post("/create")
        assert r.status_code == 429 and r.headers["retry-after"] == "7"
        assert c.get("/health").json() == {"status": "ok", "env": "guess", "sessions": 3, "capacity": 3}
        assert c.delete(f"/sessions/{sids[0]}").status_code == 200
        assert c.post("/sessions", json={"seed": 9}).status_code == 201
        episodes, _ = _store(c)
        assert len(episodes) == 4


def test_steps_after_close_and_after_done(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url) as c:
        sid = _create(c, task_id="train-1")  # target 38
        assert c.post(f"/sessions/{sid}/step", json={"action": "guess 38"}).json()["done"]
        _error(c.post(f"/sessions/{sid}/step", json={"action": "guess 38"}), 409, "episode_finished")
        assert c.delete(f"/sessions/{sid}").status_code == 200
        _error(c.post(f"/sessions/{sid}/step", json={"action": "guess 38"}), 404)
        _, steps = _store(c)
        assert len(steps) == 1


def test_batch_items_fail_alone(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url) as c:
        a = _create(c, task_id="train-1")  # target 38
        b = _create(c, task_id="train-2")  # target 75
        items = [
            {"session_id": a, "action": "guess 50"},
            {"session_id": "nope", "action": "guess 50"},
            {"session_id": b, "action": "guess 75"},
            {"session_id": b, "action": "guess 75"},  # after done
            {"session_id": a, "action": "x" * (64 * 1024 + 1)},
            {"session_id": a},  # malformed: no action
            {"session_id": a, "action": 38},  # malformed: not text
            "garbage",
            {"session_id": a, "action": "guess 38"},
        ]
        r = c.post("/batch/step", json={"items": items})
        assert r.status_code == 200
        results = r.json()["results"]
        assert [x["status"] for x in results] == [200, 404, 200, 409, 413, 422, 422, 422, 200]
        assert [x["ok"] for x in results] == [True, False, True, False, False, False, False, False, True]
        assert results[5]["session_id"] == a and results[5]["error"]["code"] == "invalid_request"
        assert results[0]["result"]["observation"] == "lower"
        assert results[2]["result"]["done"] and results[8]["result"]["done"]
        assert results[1]["error"]["code"] == "session_not_found"
        assert results[3]["error"]["code"] == "episode_finished"
        assert results[4]["error"]["code"] == "action_too_large"
        assert all((x["result"] is None) != (x["error"] is None) for x in results)
        _, steps = _store(c)
        assert sorted((s.action, s.index) for s in steps) == [("guess 38", 2), ("guess 50", 1), ("guess 75", 1)]


def test_internal_errors_do_not_leak(sqlite_url: str) -> None:
    with serve("tests.server.envs:ExplodingEnv", db_url=sqlite_url, raise_server_exceptions=False) as c:
        sid = _create(c, seed=1)
        r = c.post(f"/sessions/{sid}/step", json={"action": "boom"})
        err = _error(r, 500, "internal_error")
        assert "passwd" not in r.text and "Traceback" not in r.text and "RuntimeError" not in r.text
        assert err["message"] == "internal server error"
        batch = c.post(
            "/batch/step",
            json={"items": [{"session_id": sid, "action": "boom"}, {"session_id": sid, "action": "guess 1"}]},
        )
        assert [x["status"] for x in batch.json()["results"]] == [500, 200]
        assert "passwd" not in batch.text


def test_unknown_routes_and_methods_use_the_error_shape() -> None:
    with serve() as c:
        _error(c.get("/no/such/route"), 404, "not_found")
        _error(c.put("/health"), 405, "method_not_allowed")


@pytest.mark.parametrize("token", [None, "s3cret"])
def test_admin_requires_a_configured_token(token: str | None) -> None:
    with serve("tests.server.envs:AdminGuessEnv", admin_token=token) as c:
        _error(c.post("/admin/set_bonus", json={"bonus": 2}), 403, "forbidden")
        _error(
            c.post("/admin/set_bonus", json={"bonus": 2}, headers={"Authorization": "Bearer wrong"}), 403, "forbidden"
        )
        if token is None:
            _error(c.post("/admin/set_bonus", json={"bonus": 2}, headers={"Authorization": "Bearer "}), 403)
            return
        auth = {"Authorization": f"Bearer {token}"}
        _error(c.post("/admin/nope", json={}, headers=auth), 404, "unknown_command")
        r = c.post("/admin/set_bonus", json={"bonus": 2}, headers=auth)
        assert r.status_code == 200 and r.json() == {"command": "set_bonus", "result": {"bonus": 2.0}}
        sid = _create(c, task_id="train-1")
        assert c.post(f"/sessions/{sid}/step", json={"action": "guess 38"}).json()["reward"] == 3.0
