"""Metrics, OpenAPI docs, and the store flush at shutdown."""

from __future__ import annotations

import re
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from coevo.store.db import make_engine
from coevo.store.tables import StepRecord
from tests.server.conftest import serve


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_metrics_count_what_happened() -> None:
    with serve(idle_ttl_s=3600) as c:
        a = c.post("/sessions", json={"task_id": "train-1"}).json()["session_id"]
        b = c.post("/sessions", json={"seed": 2}).json()["session_id"]
        for action in ("guess 10", "guess 90", "guess 38"):
            c.post(f"/sessions/{a}/step", json={"action": action})
        c.post(f"/sessions/{a}/step", json={"action": "guess 1"})  # 409
        c.get("/sessions/nope")  # 404
        c.delete(f"/sessions/{b}")
        resp = c.get("/metrics")
        assert resp.headers["content-type"].startswith("text/plain")
        m = _samples(resp.text)
    env = ("env", "guess")
    assert m[("coevo_sessions_active", (env,))] == 1
    assert m[("coevo_sessions_created_total", (env,))] == 2
    assert m[("coevo_sessions_released_total", (env, ("reason", "closed")))] == 1
    assert m[("coevo_steps_total", (env,))] == 3
    assert m[("coevo_step_seconds_count", (env,))] == 3
    assert m[("coevo_reset_seconds_count", (env,))] == 2
    assert m[("coevo_errors_total", (("code", "episode_finished"), env, ("status", "409")))] == 1
    assert m[("coevo_errors_total", (("code", "session_not_found"), env, ("status", "404")))] == 1


def test_metrics_count_store_rows_and_group_commits(tmp_path: Path) -> None:
    with serve(db_url=f"sqlite:///{tmp_path / 's.db'}") as c:
        a = c.post("/sessions", json={"seed": 1}).json()["session_id"]
        b = c.post("/sessions", json={"seed": 2}).json()["session_id"]
        for action in ("guess 10", "guess 90", "guess 60"):
            assert c.post(f"/sessions/{a}/step", json={"action": action}).status_code == 200
        items = [{"session_id": a, "action": "guess 70"}, {"session_id": b, "action": "guess 5"}]
        assert all(r["ok"] for r in c.post("/batch/step", json={"items": items}).json()["results"])
        c.delete(f"/sessions/{b}")
        m = _samples(c.get("/metrics").text)
    env = ("env", "guess")
    # 2 new episodes, 5 steps, 1 episode closed: every recorded row, each counted once.
    assert m[("coevo_store_rows_written_total", (env,))] == 8
    # Each of the 7 recording requests waited for a commit of its own (the client waited for
    # each answer); the writer's timer may split one request's rows from its wait, never more.
    assert 7 <= m[("coevo_store_transactions_total", (env,))] <= 14


def test_two_apps_in_one_process_keep_separate_metrics() -> None:
    with serve() as one, serve() as two:
        one.post("/sessions", json={"seed": 1})
        assert 'coevo_sessions_created_total{env="guess"} 1.0' in one.get("/metrics").text
        assert 'coevo_sessions_created_total{env="guess"} 0.0' in two.get("/metrics").text


def test_openapi_documents_every_route() -> None:
    with serve() as c:
        assert c.get("/docs").status_code == 200
        spec = c.get("/openapi.json").json()
    paths = spec["paths"]
    for path, method, schema in [
        ("/health", "get", "HealthResponse"),
        ("/info", "get", "InfoResponse"),
        ("/tasks", "get", "TaskListResponse"),
        ("/sessions", "post", "SessionResponse"),
        ("/sessions/{session_id}/step", "post", "StepResponse"),
        ("/sessions/{session_id}/reset", "post", "SessionResponse"),
        ("/sessions/{session_id}", "get", "SessionState"),
        ("/sessions/{session_id}", "delete", "ClosedResponse"),
        ("/sessions/{session_id}/fork", "post", "SessionResponse"),
        ("/sessions/{session_id}/expert", "get", "ExpertActionResponse"),
        ("/batch/step", "post", "BatchStepResponse"),
        ("/admin/{command}", "post", "AdminResponse"),
    ]:
        op = paths[path][method]
        ok = op["responses"].get("200") or op["responses"].get("201")
        assert schema in str(ok), (path, method)
        if path not in ("/health", "/info"):
            assert any(code.startswith("4") for code in op["responses"]), (path, method)
        assert op.get("summary") and op.get("description"), (path, method)
    assert "action" in str(paths["/sessions/{session_id}/step"]["post"]["requestBody"])
    for compat in ("/create", "/step", "/reset", "/observation", "/available_actions", "/detail", "/close"):
        assert compat in paths
    assert re.search(r"ErrorBody", str(paths["/sessions/{session_id}/step"]["post"]["responses"]["404"]))


def test_shutdown_flushes_the_buffer(sqlite_url: str) -> None:
    """With durability buffered, answers go out before the write: shutdown writes the rest."""
    with serve(db_url=sqlite_url, flush_interval_s=3600, flush_max_rows=10**6, durability="buffered") as c:
        sid = c.post("/sessions", json={"seed": 1}).json()["session_id"]
        for n in range(5):
            c.post(f"/sessions/{sid}/step", json={"action": f"guess {n}"})
        assert c.app.state.service.writer.pending >= 5  # nothing written yet
    engine = make_engine(sqlite_url)
    with Session(engine) as db:
        assert db.scalar(select(func.count()).select_from(StepRecord)) == 5
    engine.dispose()


def test_durable_answers_come_after_the_commit(sqlite_url: str) -> None:
    """The default: every answered create and step is in the store, even with a writer that
    would otherwise wait an hour."""
    with serve(db_url=sqlite_url, flush_interval_s=3600, flush_max_rows=10**6) as c:
        sid = c.post("/sessions", json={"seed": 1}).json()["session_id"]
        engine = make_engine(sqlite_url)
        for n in range(1, 6):
            assert c.post(f"/sessions/{sid}/step", json={"action": f"guess {n}"}).status_code == 200
            with Session(engine) as db:
                assert db.scalar(select(func.count()).select_from(StepRecord)) == n
        assert c.app.state.service.writer.pending == 0
        engine.dispose()
