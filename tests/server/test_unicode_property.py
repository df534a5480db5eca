"""Property: any Unicode a client sends, through any front, is either refused with 422 or
acknowledged, stored and recovered after a SIGKILL — the store never refuses text a route took.

Random strings (lone surrogates, NUL, astral characters, controls and everything between) go
as actions through the native step, the batch, AgentGym's /step, OpenEnv's /step and /ws, and
MCP's `act`, spelled as JSON escapes and as raw UTF-8 bytes. A real `coevo serve` is then
SIGKILLed and restarted on the same store: every acknowledged step must be in the store, in
order, and every session still open must come back at the step it had reached.
"""

from __future__ import annotations

import json
import signal
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.orm import Session
from websockets.sync.client import ClientConnection, connect

from coevo.store.db import make_engine
from coevo.store.tables import Episode, StepRecord
from tests.server.test_recovery import _free_port, coevo_serve

FRONTS = ("native", "batch", "agentgym", "openenv", "ws", "mcp")
#: Steps a session takes before the test opens another (the fixture env's cap is 12).
STEPS_PER_SESSION = 10

#: Any code point, surrogates and NUL included, mostly small strings.
TEXTS = st.one_of(
    st.text(max_size=40),
    st.lists(st.integers(0, 0x10FFFF), max_size=12).map(lambda cps: "".join(map(chr, cps))),
    st.lists(st.sampled_from([0, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0x1F600, 0xFFFF, 0x2028, 0x7F]), max_size=6).map(
        lambda cps: "guess " + "".join(map(chr, cps))
    ),
)


def storable(text: str) -> bool:
    """Text the rule accepts: no lone surrogate (a str holding one cannot be UTF-8) and no NUL."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


class Fronts:
    """One current session per front, and what each session had acknowledged."""

    def __init__(self, base: str, port: int) -> None:
        self.base, self.port = base, port
        self.http = httpx.Client(base_url=base, timeout=30)
        self.acked: dict[str, list[str]] = {}
        self.last_observation: dict[str, str] = {}
        self.closed: set[str] = set()
        self.current: dict[str, str] = {}
        self.ws: ClientConnection | None = None
        self.sockets = ExitStack()
        self.refusals = 0

    def session(self, front: str) -> str:
        sid = self.current.get(front)
        if sid is not None and len(self.acked[sid]) < STEPS_PER_SESSION:
            return sid
        if front == "ws":
            if self.ws is not None:
                self.ws.close()  # closes its session: stored, not recoverable
                self.closed.add(self.current["ws"])
            self.ws = self.sockets.enter_context(connect(f"ws://127.0.0.1:{self.port}/ws", max_size=None))
            self.ws.send('{"type": "reset", "data": {"task_id": "train-7"}}')
            sid = json.loads(self.ws.recv())["data"]["observation"]["session_id"]
        else:
            r = self.http.post("/sessions", json={"task_id": "train-7"})
            assert r.status_code == 201, r.text
            sid = r.json()["session_id"]
        self.current[front] = sid
        self.acked[sid] = []
        return str(sid)

    def send(self, front: str, text: str, raw_utf8: bool) -> None:
        sid = self.session(front)
        action = json.dumps(text, ensure_ascii=not raw_utf8)
        status, code, observation = self._request(front, sid, action)
        if storable(text):
            assert status == 200, (front, ascii(text), status, code)
            self.acked[sid].append(text)
            self.last_observation[sid] = observation
        else:
            assert status == 422, (front, ascii(text), status, code)
            assert code in ("invalid_text", "malformed_json"), code
            self.refusals += 1

    def _request(self, front: str, sid: str, action: str) -> tuple[int, str, str]:
        if front == "ws":
            assert self.ws is not None
            if "\\u" not in action and not _utf8(action):
                return 422, "malformed_json", ""  # a WebSocket text frame cannot carry it at all
            self.ws.send(f'{{"type": "step", "data": {{"action": {action}}}}}')
            reply = json.loads(self.ws.recv())
            if reply["type"] == "error":
                return reply["data"]["status"], reply["data"]["code"], ""
            return 200, "", reply["data"]["observation"]["text"]
        body = {
            "native": f'{{"action": {action}}}',
            "batch": f'{{"items": [{{"session_id": "{sid}", "action": {action}}}]}}',
            "agentgym": f'{{"id": "{sid}", "action": {action}}}',
            "openenv": f'{{"session_id": "{sid}", "action": {{"action": {action}}}}}',
            "mcp": '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "act", '
            f'"arguments": {{"session_id": "{sid}", "action": {action}}}}}}}',
        }[front]
        path = {
            "native": f"/sessions/{sid}/step",
            "batch": "/batch/step",
            "agentgym": "/step",
            "openenv": "/step",
            "mcp": "/mcp",
        }[front]
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        r = self.http.post(path, content=body.encode("utf-8", "surrogatepass"), headers=headers)
        if r.status_code != 200:
            return r.status_code, r.json()["error"]["code"], ""
        data: Any = r.json()
        if front == "batch":
            item = data["results"][0]
            return item["status"], (item["error"] or {}).get("code", ""), (item["result"] or {}).get("observation", "")
        if front == "mcp":
            result = data["result"]
            assert not result["isError"], result
            return 200, "", result["structuredContent"]["observation"]
        if front == "openenv":
            return 200, "", data["observation"]["text"]
        return 200, "", data["observation"]


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _stored_actions(db_url: str) -> dict[str, list[str]]:
    engine = make_engine(db_url)
    out: dict[str, list[str]] = {}
    with Session(engine) as db:
        rows = db.execute(
            select(Episode.session_id, StepRecord.action)
            .join(StepRecord, StepRecord.episode_id == Episode.id)
            .order_by(Episode.session_id, StepRecord.index)
        ).all()
    engine.dispose()
    for sid, action in rows:
        out.setdefault(sid, []).append(action)
    return out


def test_random_unicode_through_every_front_is_refused_or_stored_and_recovered(db_url: str, tmp_path: Path) -> None:
    port, log = _free_port(), tmp_path / "serve.log"
    with coevo_serve(db_url, port, log) as (proc, base):
        fronts = Fronts(base, port)

        @settings(
            max_examples=400, deadline=None, database=None, suppress_health_check=list(HealthCheck), derandomize=True
        )
        @given(st.sampled_from(FRONTS), TEXTS, st.booleans())
        def feed(front: str, text: str, raw_utf8: bool) -> None:
            fronts.send(front, text, raw_utf8)

        with fronts.sockets:
            feed()
            # Every request was answered, so every acknowledged step is committed (durable mode).
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
    acked = {sid: actions for sid, actions in fronts.acked.items() if actions}
    assert sum(map(len, acked.values())) > 100 and fronts.refusals > 20  # both sides were exercised
    stored = _stored_actions(db_url)
    assert {sid: stored.get(sid, []) for sid in acked} == acked
    assert "refused a row" not in log.read_text(errors="replace")

    # The same address: the restarted server is the sessions' owner (docs/server.md).
    with coevo_serve(db_url, port, log) as (_, base), httpx.Client(base_url=base, timeout=30) as c:
        for sid, actions in acked.items():
            r = c.get(f"/sessions/{sid}")
            if sid in fronts.closed:
                assert r.status_code == 404, r.text
                continue
            assert r.status_code == 200, r.text
            state = r.json()
            assert state["steps"] == len(actions)
            assert state["last_observation"] == fronts.last_observation[sid]
