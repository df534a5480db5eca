"""One error contract on every route of a live app: malformed or invalid bodies get 422, bodies
that are not JSON get 415, oversized declared bodies get 413 — always as the JSON error body,
never a 400 or a 500. The route list is read from the app itself, so a new route is covered
without touching this file."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from coevo.config import ServerConfig
from coevo.server import create_app
from tests.server.conftest import serve

TOKEN = "t0ken"
AUTH = {"authorization": f"Bearer {TOKEN}"}
JSON = {"content-type": "application/json"}


def _routes() -> tuple[list[tuple[str, str]], set[tuple[str, str]]]:
    """Every (method, path) the app serves, from its own OpenAPI description, and those whose
    description declares a request body."""
    paths = create_app("guess", config=ServerConfig(record=False)).openapi()["paths"]
    routes = [(m.upper(), p) for p, ops in paths.items() for m in ops]
    with_body = {(m.upper(), p) for p, ops in paths.items() for m, op in ops.items() if "requestBody" in op}
    return routes, with_body


ROUTES, WITH_BODY = _routes()
BODY_ROUTES = [(m, p) for m, p in ROUTES if m == "POST"]


def _error(r: Any, status: int, code: str | None = None) -> None:
    assert r.status_code == status, (r.request.method, r.request.url, r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json"), r.headers
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    if code is not None:
        assert body["error"]["code"] == code, body


@pytest.fixture(scope="module")
def client() -> Any:
    with serve(admin_token=TOKEN) as c:
        yield c


def _url(client: TestClient, path: str) -> str:
    if "{session_id}" in path:
        sid = client.post("/sessions", json={"seed": 1}).json()["session_id"]
        path = path.replace("{session_id}", sid)
    return re.sub(r"\{[^}]+\}", "stats", path)


def test_the_route_list_covers_the_protocol() -> None:
    paths = {p for _, p in ROUTES}
    assert {
        "/sessions",
        "/sessions/{session_id}/step",
        "/sessions/{session_id}/reset",
        "/batch/step",
        "/admin/{command}",
        "/create",
        "/step",
        "/reset",
        "/close",
        "/tasks",
        "/health",
    } <= paths


@pytest.mark.parametrize(("method", "path"), BODY_ROUTES, ids=[f"{m} {p}" for m, p in BODY_ROUTES])
def test_malformed_bodies_get_422(client: TestClient, method: str, path: str) -> None:
    url = _url(client, path)
    # Invalid UTF-8 inside a JSON string: FastAPI's own parser answered 400 http_error here.
    for raw in (b'{"seed": "\xff"}', b'{"action": "gue', b"\xff\xfe"):
        r = client.request(method, url, content=raw, headers={**JSON, **AUTH})
        if (method, path) in WITH_BODY:
            _error(r, 422, "malformed_json")
        else:  # a route that reads no body ignores it, and still answers with the contract
            assert r.status_code < 500, r.text


@pytest.mark.parametrize(("method", "path"), BODY_ROUTES, ids=[f"{m} {p}" for m, p in BODY_ROUTES])
def test_bodies_that_are_not_json_get_415(client: TestClient, method: str, path: str) -> None:
    url = _url(client, path)
    for media_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        r = client.request(method, url, content=b'{"action": "guess 5"}', headers={"content-type": media_type, **AUTH})
        _error(r, 415, "unsupported_media_type")
    _error(client.request(method, url, content=b'{"action": "guess 5"}', headers=AUTH), 415)


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
def test_oversized_declared_bodies_get_413_json(client: TestClient, method: str, path: str) -> None:
    url = _url(client, path)
    r = client.request(method, url, content=b"{}", headers={**JSON, **AUTH, "content-length": str(10**30)})
    _error(r, 413, "body_too_large")


def test_the_step_route_refuses_a_cross_site_form_post(client: TestClient) -> None:
    sid = client.post("/sessions", json={"seed": 1}).json()["session_id"]
    r = client.post(f"/sessions/{sid}/step", content=b'{"action": "guess 5"}', headers={"content-type": "text/plain"})
    _error(r, 415, "unsupported_media_type")
    assert client.get(f"/sessions/{sid}").json()["steps"] == 0
    # JSON with a charset, and +json types, are JSON.
    ok = client.post(
        f"/sessions/{sid}/step",
        content=b'{"action": "guess 5"}',
        headers={"content-type": "application/json; charset=utf-8"},
    )
    assert ok.status_code == 200, ok.text
    # An empty body needs no media type (POST /sessions with no body starts a seeded-by-server episode).
    assert client.post("/sessions", content=b"", headers={"content-type": "text/plain"}).status_code == 201


@pytest.mark.parametrize("route", ["/sessions", "/create"])
def test_seeds_are_strict_json_integers(client: TestClient, route: str) -> None:
    for seed in (True, "7", 7.0, -1, 2**63, 2**70):
        _error(client.post(route, json={"seed": seed}), 422, "invalid_request")
    assert client.post(route, json={"seed": 2**63 - 1}).status_code in (200, 201)
    sid = client.post("/sessions", json={"seed": 1}).json()["session_id"]
    for seed in (True, "7", 2**64):
        _error(client.post(f"/sessions/{sid}/reset", json={"seed": seed}), 422, "invalid_request")


def test_task_page_bounds(client: TestClient) -> None:
    _error(client.get("/tasks", params={"offset": 2**63}), 422, "invalid_request")
    _error(client.get("/tasks", params={"offset": -1}), 422, "invalid_request")
    _error(client.get("/tasks", params={"limit": 1001}), 422, "invalid_request")
    assert client.get("/tasks", params={"offset": 2**63 - 1, "limit": 1000}).json()["tasks"] == []
