"""One JSON decoder and text rule on every front: native, batch, AgentGym, OpenEnv (HTTP and
/ws) and MCP refuse a lone surrogate, U+0000 and over-deep nesting alike, with 422 and the
JSON error body, and the session they name is untouched."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from coevo.server.json_body import MAX_JSON_DEPTH
from tests.server.conftest import serve

JSON = {"content-type": "application/json"}
MCP = {**JSON, "accept": "application/json, text/event-stream", "host": "127.0.0.1:8000"}

#: (what, JSON text of a string, the error code): spelled as JSON escapes, as a client sends them.
BAD_TEXT = [
    ("lone high surrogate", '"guess \\ud800"', "invalid_text"),
    ("lone low surrogate", '"\\udc00guess 5"', "invalid_text"),
    ("NUL", '"guess 5\\u0000"', "invalid_text"),
]
DEEP = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)


@pytest.fixture
def client(sqlite_url: str) -> Iterator[TestClient]:
    with serve(db_url=sqlite_url) as c:
        yield c


def _fronts(sid: str) -> dict[str, Callable[[str], str]]:
    """Each front's body with `text` (a JSON value) in the place of its action."""
    return {
        "POST /sessions/{id}/step": lambda text: f'{{"action": {text}}}',
        "POST /batch/step": lambda text: f'{{"items": [{{"session_id": "{sid}", "action": {text}}}]}}',
        "POST /step (AgentGym)": lambda text: f'{{"id": "{sid}", "action": {text}}}',
        "POST /step (OpenEnv)": lambda text: f'{{"session_id": "{sid}", "action": {{"action": {text}}}}}',
        "POST /reset (AgentGym extra field)": lambda text: f'{{"id": "{sid}", "world_type": {text}}}',
        "POST /sessions (task_id)": lambda text: f'{{"task_id": {text}}}',
        "POST /create (AgentGym)": lambda text: f'{{"task_id": {text}}}',
        "POST /reset (OpenEnv)": lambda text: f'{{"task_id": {text}}}',
        "POST /mcp (act)": lambda text: (
            '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "act", '
            f'"arguments": {{"session_id": "{sid}", "action": {text}}}}}}}'
        ),
    }


def _post(client: TestClient, front: str, sid: str, body: str) -> Any:
    path = front.split()[1].replace("{id}", sid)
    return client.post(path, content=body.encode(), headers=MCP if path == "/mcp" else JSON)


def _refused(r: Any, code: str) -> None:
    assert r.status_code == 422, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    assert r.json()["error"]["code"] == code, r.text
    assert r.json()["error"]["message"]


@pytest.mark.parametrize(("what", "text", "code"), BAD_TEXT, ids=[b[0] for b in BAD_TEXT])
def test_every_http_front_refuses_bad_text_alike(client: TestClient, what: str, text: str, code: str) -> None:
    sid = client.post("/sessions", json={"task_id": "train-1"}).json()["session_id"]
    for front, body in _fronts(sid).items():
        r = _post(client, front, sid, body(text))
        assert r.status_code == 422, (front, r.status_code, r.text)
        _refused(r, code)
    # Nothing reached the session: still at step 0, and a good step is step 1.
    assert client.get(f"/sessions/{sid}").json()["steps"] == 0
    assert client.post(f"/sessions/{sid}/step", json={"action": "guess 5"}).json()["info"]["step"] == 1


def test_every_http_front_refuses_over_deep_json(client: TestClient) -> None:
    sid = client.post("/sessions", json={"task_id": "train-1"}).json()["session_id"]
    for front, body in _fronts(sid).items():
        _refused(_post(client, front, sid, body(DEEP)), "json_too_deep")
    # The cap itself is accepted by the decoder (the route then judges the value).
    at_cap = "[" * (MAX_JSON_DEPTH - 3) + "]" * (MAX_JSON_DEPTH - 3)
    r = client.post("/reset", content=f'{{"id": "{sid}", "world_type": {at_cap}}}', headers=JSON)
    assert r.status_code == 200, r.text


def test_good_text_passes_every_front(client: TestClient) -> None:
    """Astral characters, escaped pairs and other controls are text like any other."""
    sid = client.post("/sessions", json={"task_id": "train-1"}).json()["session_id"]
    text = json.dumps("guess 5 \U0001f600 \ud83d\ude00 \t é", ensure_ascii=True)
    for front in ("POST /sessions/{id}/step", "POST /step (AgentGym)", "POST /step (OpenEnv)", "POST /mcp (act)"):
        r = _post(client, front, sid, _fronts(sid)[front](text))
        assert r.status_code == 200, (front, r.text)
    assert client.get(f"/sessions/{sid}").json()["steps"] == 4


def test_websocket_front_refuses_bad_text_and_keeps_the_session(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.send_text('{"type": "reset", "data": {"task_id": "train-1"}}')
        assert json.loads(ws.receive_text())["type"] == "observation"
        for what, text, code in [*BAD_TEXT, ("deep", DEEP, "json_too_deep")]:
            ws.send_text(f'{{"type": "step", "data": {{"action": {text}}}}}')
            reply = json.loads(ws.receive_text())
            assert reply["type"] == "error", what
            assert (reply["data"]["code"], reply["data"]["status"]) == (code, 422), reply
        ws.send_text('{"type": "step", "data": {"action": "guess 5"}}')
        reply = json.loads(ws.receive_text())
        assert reply["type"] == "observation" and reply["data"]["observation"]["info"]["step"] == 1


@pytest.mark.parametrize("seed", ["true", '"7"', "7.0"])
def test_openenv_seeds_are_strict(client: TestClient, seed: str) -> None:
    _refused(client.post("/reset", content=f'{{"seed": {seed}}}', headers=JSON), "invalid_request")
    with client.websocket_connect("/ws") as ws:
        ws.send_text(f'{{"type": "reset", "data": {{"seed": {seed}}}}}')
        reply = json.loads(ws.receive_text())
        assert reply["type"] == "error" and reply["data"]["status"] == 422, reply


def test_openenv_seed_bounds(client: TestClient) -> None:
    assert client.post("/reset", json={"seed": 2**63 - 1}).status_code == 200
    for seed in (2**63, -1):
        _refused(client.post("/reset", json={"seed": seed}), "invalid_request")


def test_task_ids_longer_than_the_store_column_are_refused(client: TestClient) -> None:
    long_id = "train-1" + " " * 300
    for path in ("/sessions", "/create", "/reset"):
        _refused(client.post(path, json={"task_id": long_id}), "invalid_request")


def test_a_repeated_content_length_is_a_bad_request(client: TestClient) -> None:
    """Starlette's test transport passes both headers through as a proxy might."""
    r = client.post(
        "/sessions",
        content=b"{}",
        headers=[("content-type", "application/json"), ("content-length", "2"), ("content-length", "2")],  # type: ignore[arg-type]
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_http", r.text
