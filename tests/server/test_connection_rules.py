"""Connection-level rules: an unexpected 500 keeps the keep-alive connection, /ws checks Origin
as MCP does, a GET /mcp event stream ends after its idle limit, and an admin error never shows
the server's absolute paths."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import httpx
import pytest
from starlette.websockets import WebSocketDisconnect

from tests.server.conftest import serve
from tests.server.live import live_server


def _exchange(sock: socket.socket, request: bytes) -> tuple[int, dict[str, object]]:
    """One request on an open connection, its status and JSON body (Content-Length framed)."""
    sock.sendall(request)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(
        next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    )
    while len(body) < length:
        body += sock.recv(65536)
    return int(head.split(b" ")[1]), json.loads(body)


def _post(path: str, body: dict[str, object]) -> bytes:
    raw = json.dumps(body).encode()
    return (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(raw)}\r\n\r\n"
    ).encode() + raw


def test_an_unexpected_500_keeps_the_connection() -> None:
    with live_server("tests.server.envs:ExplodingEnv") as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.settimeout(10)
            status, created = _exchange(sock, _post("/sessions", {"seed": 1}))
            sid = created["session_id"]
            status, error = _exchange(sock, _post(f"/sessions/{sid}/step", {"action": "boom"}))
            assert status == 500 and error == {"error": {"code": "internal_error", "message": "internal server error"}}
            # The same connection answers the next request.
            status, step = _exchange(sock, _post(f"/sessions/{sid}/step", {"action": "guess 50"}))
            assert status == 200 and step["session_id"] == sid


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        (None, True),
        ("http://127.0.0.1:8000", True),
        ("http://localhost:3000", True),
        ("https://evil.example", False),
        ("http://127.0.0.1.evil.example", False),
        ("null", False),
    ],
)
def test_websocket_origin_is_checked_on_a_loopback_bind(origin: str | None, allowed: bool) -> None:
    headers = {} if origin is None else {"origin": origin}
    with serve() as c:
        if allowed:
            with c.websocket_connect("/ws", headers=headers) as ws:
                ws.send_text('{"type": "reset", "data": {}}')
                assert json.loads(ws.receive_text())["type"] == "observation"
        else:
            with pytest.raises(WebSocketDisconnect) as refused, c.websocket_connect("/ws", headers=headers):
                pass
            assert refused.value.code == 1008


def test_websocket_origin_is_free_on_a_public_bind() -> None:
    with serve(host="0.0.0.0") as c, c.websocket_connect("/ws", headers={"origin": "https://lab.example"}) as ws:
        ws.send_text('{"type": "reset", "data": {}}')
        assert json.loads(ws.receive_text())["type"] == "observation"


def test_an_mcp_event_stream_ends_after_its_idle_limit() -> None:
    pytest.importorskip("mcp")
    with live_server("guess", mcp_stream_idle_s=1.0) as url:
        headers = {"accept": "text/event-stream", "mcp-protocol-version": "2025-06-18"}
        t0 = time.perf_counter()
        with httpx.Client(timeout=30) as client, client.stream("GET", f"{url}/mcp", headers=headers) as r:
            list(r.iter_bytes())  # returns once the server ends the stream
            elapsed = time.perf_counter() - t0
            status = r.status_code
        assert status == 200 and elapsed < 20, (status, elapsed)


def test_admin_errors_do_not_name_the_servers_paths(tmp_path: Path) -> None:
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "broken.json").write_text("{not json", encoding="utf-8")
    with serve(
        "simulator",
        env_options={"db_url": f"sqlite:///{tmp_path / 'sim.db'}", "base_size": 4},
        admin_token="s3cret",
        admin_dir=str(tmp_path),
    ) as c:
        r = c.post(
            "/admin/load_policy", json={"path": "policies/broken.json"}, headers={"Authorization": "Bearer s3cret"}
        )
        assert r.status_code == 422, r.text
        message = r.json()["error"]["message"]
        assert "policies/broken.json" in message and str(tmp_path) not in message, message
