"""The error contract of the hot routes (step, create, batch), pinned exactly: every bad request
in `fixtures/hot_route_errors.json` must get the recorded status, headers and JSON body, word
for word. The fixture was recorded from the server before the step path was optimised (issue
#42), so any speed-up that changes what a client sees for bad input fails here.

Each case runs twice: on the step route's fast path and, with it off, on the FastAPI route.
Session ids differ per run: the fixture names them `{live}`, `{done}` and `{closed}`, and the
answers are compared with the real ids put back to those names.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from coevo.server.hot_step import step_session_id
from tests.server.conftest import serve

FIXTURE = Path(__file__).parent / "fixtures" / "hot_route_errors.json"
CONTRACT = json.loads(FIXTURE.read_text())
#: Headers whose value is part of the contract (the rest are transport detail).
PINNED_HEADERS = ("retry-after", "content-type")


class Served:
    """One server of the fixture, with its named sessions: `live` (mid-episode), `done`
    (episode finished) and `closed` (released), and capacity filled where it is capped."""

    def __init__(self, client: TestClient, max_sessions: int | None) -> None:
        self.client = client
        self.ids = {"live": self._create(seed=1), "done": self._create(task_id="train-1")}
        r = client.post(f"/sessions/{self.ids['done']}/step", json={"action": "guess 38"})
        assert r.status_code == 200 and r.json()["done"], r.text
        self.ids["closed"] = self._create(seed=2)
        assert client.delete(f"/sessions/{self.ids['closed']}").status_code == 200
        while max_sessions is not None and client.get("/health").json()["sessions"] < max_sessions:
            self._create(seed=3)

    def _create(self, **body: Any) -> str:
        r = self.client.post("/sessions", json=body)
        assert r.status_code == 201, r.text
        return str(r.json()["session_id"])

    def fill(self, text: str) -> str:
        for name, sid in self.ids.items():
            text = text.replace("{" + name + "}", sid)
        return text

    def name(self, text: str) -> str:
        for name, sid in self.ids.items():
            text = text.replace(sid, "{" + name + "}")
        return text


def request_bytes(served: Served, request: dict[str, Any]) -> tuple[str, str, bytes | None, dict[str, str]]:
    """(method, url, body, headers) of a fixture request, placeholders filled and long parts
    (`repeat`: each marker in turn replaced by the next
    part, repeated its number of times) expanded."""
    headers = dict(request.get("headers", {}))
    if "json" in request:
        text: str | None = json.dumps(request["json"])
        headers.setdefault("content-type", "application/json")
    else:
        text = request.get("raw")
    if text is not None:
        text = served.fill(text)
        repeat = request.get("repeat")
        if repeat:
            for part, times in repeat["parts"]:
                text = text.replace(repeat["marker"], part * times, 1)
    # raw strings are code points 0-255 written as JSON escapes: latin-1 gives back their bytes
    # (invalid UTF-8 included); anything past that is UTF-8.
    body = None if text is None else (text.encode("latin-1") if max(text, default="\0") <= "\xff" else text.encode())
    return request["method"], served.fill(request["path"]), body, headers


def live_steps(served: Served) -> int:
    return int(served.client.get(f"/sessions/{served.ids['live']}").json()["steps"])


def answer(served: Served, case: dict[str, Any]) -> dict[str, Any]:
    """What the server answers to the case's request, and how many steps `live` took meanwhile
    (a refused request takes none: bad input loses and changes nothing)."""
    method, url, body, headers = request_bytes(served, case["request"])
    before = live_steps(served)
    r = served.client.request(method, url, content=body, headers=headers)
    pinned = {h: r.headers[h] for h in PINNED_HEADERS if h in r.headers}
    return {
        "status": r.status_code,
        "headers": pinned,
        "body": json.loads(served.name(r.text)),
        "live_steps_taken": live_steps(served) - before,
    }


@pytest.fixture(scope="module", params=["hot_step", "fastapi_route"])
def servers(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Served]]:
    """The fixture's servers, answering the step route on its fast path (server/hot_step.py) or,
    with that turned off, on the FastAPI route it stands in front of: both answer alike."""
    with ExitStack() as stack:
        out = {}
        for name, spec in CONTRACT["servers"].items():
            db = tmp_path_factory.mktemp(name) / "store.db"
            client = stack.enter_context(
                serve(spec["env"], db_url=f"sqlite:///{db}", raise_server_exceptions=False, **spec["config"])
            )
            assert client.app.state.hot_step.on
            if request.param == "fastapi_route":
                client.app.state.hot_step.on = False
            out[name] = Served(client, spec["config"].get("max_sessions"))
        yield out


def test_the_fixture_covers_every_hot_route() -> None:
    paths = {case["request"]["path"] for case in CONTRACT["cases"]}
    assert {"/sessions", "/batch/step", "/sessions/{live}/step"} <= paths
    statuses = {case["status"] for case in CONTRACT["cases"]}
    assert {400, 404, 405, 409, 413, 415, 422, 429, 500} <= statuses


@pytest.mark.parametrize("case", CONTRACT["cases"], ids=[case["name"] for case in CONTRACT["cases"]])
def test_bad_input_gets_the_recorded_answer(servers: dict[str, Served], case: dict[str, Any]) -> None:
    got = answer(servers[case["server"]], case)
    expected = {key: case[key] for key in ("status", "headers", "body", "live_steps_taken")}
    assert got == expected


@pytest.mark.parametrize(
    ("method", "path", "root_path", "hot"),
    [
        ("POST", "/sessions/abc/step", "", True),
        ("POST", "/sessions/a%20b/step", "", True),
        ("GET", "/sessions/abc/step", "", False),
        ("POST", "/sessions//step", "", False),
        ("POST", "/sessions/a/b/step", "", False),
        ("POST", "/sessions/abc/step/", "", False),
        ("POST", "/sessions/abc/reset", "", False),
        ("POST", "/sessions/abc/step", "/behind-a-proxy", False),
    ],
)
def test_only_the_step_route_takes_the_fast_path(method: str, path: str, root_path: str, hot: bool) -> None:
    """The fast path takes what Starlette's `/sessions/{session_id}/step` matches for POST, and
    nothing else (a root path leaves routing to FastAPI)."""
    scope = {"type": "http", "method": method, "path": path, "root_path": root_path}
    assert (step_session_id(scope) is not None) is hot
