"""One rule for every number a client sends: a documented upper bound, checked before any work.

Every integer in the OpenAPI description (route parameters and request-body fields) must
declare a maximum, and just past it, at 2**63 and at -1 the server answers 4xx. Every knob of
a task-id grammar (ALFWorld's `gen-<seed>?knob=value`) is refused past its bound the same way,
and seeds stay valid up to 2**63 - 1 on every front.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from coevo.envs.alfworld.generator import MAX_DISTRACTORS, MAX_INSTANCES, MAX_RECEPTACLES
from coevo.envs.alfworld.tasks import MAX_GEN_SEED
from coevo.wire import MAX_INT64
from tests.server.conftest import serve

JSON = {"content-type": "application/json"}
MCP = {**JSON, "accept": "application/json, text/event-stream", "host": "127.0.0.1:8000"}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with serve() as c:
        yield c


def _integer_schemas(schema: dict[str, Any], components: dict[str, Any]) -> list[dict[str, Any]]:
    """The integer alternatives of a (possibly $ref'd, anyOf'd) schema."""
    if "$ref" in schema:
        return _integer_schemas(components[schema["$ref"].rsplit("/", 1)[1]], components)
    if schema.get("type") == "integer":
        return [schema]
    return [s for alt in schema.get("anyOf", []) for s in _integer_schemas(alt, components)]


def _past(schema: dict[str, Any]) -> list[int]:
    return sorted({schema["maximum"] + 1, 2**63, -1})


def _base_body(path: str, sid: str, model: dict[str, Any]) -> dict[str, Any]:
    """A body the route would accept: its required strings, and the session AgentGym names."""
    body: dict[str, Any] = {name: ("guess 5" if name == "action" else sid) for name in model.get("required", [])}
    if path in ("/reset", "/step", "/close"):
        body.setdefault("id", sid)
    return body


def test_every_openapi_integer_has_a_maximum_and_is_refused_past_it(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    components = spec["components"]["schemas"]
    sid = client.post("/sessions", json={"task_id": "train-1"}).json()["session_id"]
    unbounded: list[str] = []
    tried: set[str] = set()
    tried_bodies: set[str] = set()
    for path, operations in spec["paths"].items():
        url = path.replace("{session_id}", sid).replace("{command}", "status")
        for method, op in operations.items():
            for param in op.get("parameters", []):
                for schema in _integer_schemas(param["schema"], components):
                    if "maximum" not in schema:
                        unbounded.append(f"{method.upper()} {path} {param['name']}")
                        continue
                    for value in _past(schema):
                        r = client.request(method, url, params={param["name"]: value})
                        assert 400 <= r.status_code < 500, (method, path, param["name"], value, r.text)
                        assert "error" in r.json()
                        tried.add(param["name"])
            content = op.get("requestBody", {}).get("content", {}).get("application/json")
            if content is None:
                continue
            model = content["schema"]
            model = next((alt for alt in model.get("anyOf", []) if "$ref" in alt), model)  # Optional[Model]
            if "$ref" in model:
                model = components[model["$ref"].rsplit("/", 1)[1]]
            for name, prop in (model.get("properties") or {}).items():
                for schema in _integer_schemas(prop, components):
                    if "maximum" not in schema:
                        unbounded.append(f"{method.upper()} {path} body.{name}")
                        continue
                    for value in _past(schema):
                        body = {**_base_body(path, sid, model), name: value}
                        r = client.request(method, url, json=body)
                        assert 400 <= r.status_code < 500, (method, path, name, value, r.status_code, r.text)
                        assert "error" in r.json()
                        tried.add(name)
                        tried_bodies.add(f"{method} {path}")
    assert not unbounded, f"integers without a documented maximum: {unbounded}"
    assert {"offset", "limit", "seed", "data_idx", "game", "idx", "id", "env_idx"} <= tried, tried
    assert len(tried_bodies) >= 5, tried_bodies  # native create and reset, AgentGym create/reset/step


def test_openapi_writes_int64_bounds_as_exact_integers(client: TestClient) -> None:
    text = client.get("/openapi.json").text
    assert "9223372036854775807" in text and "e+18" not in text


def test_seeds_are_valid_up_to_int64_max_on_every_front(client: TestClient) -> None:
    seed = MAX_INT64
    assert client.post("/sessions", json={"seed": seed}).status_code == 201
    assert client.post("/create", json={"seed": seed}).status_code == 200
    r = client.post("/reset", json={"seed": seed})
    assert r.status_code == 200, r.text
    sid = r.json()["observation"]["session_id"]
    assert client.post("/reset", json={"id": sid, "seed": seed}).status_code == 200
    assert client.post(f"/sessions/{sid}/reset", json={"seed": seed}).status_code == 200
    with client.websocket_connect("/ws") as ws:
        ws.send_text(json.dumps({"type": "reset", "data": {"seed": seed}}))
        assert json.loads(ws.receive_text())["type"] == "observation"
    call = {"name": "start_episode", "arguments": {"seed": seed}}
    r = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}, headers=MCP)
    assert r.status_code == 200 and not r.json()["result"]["isError"], r.text
    for past in (seed + 1, -1):
        assert client.post("/sessions", json={"seed": past}).status_code == 422
        call = {"name": "start_episode", "arguments": {"seed": past}}
        r = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}, headers=MCP)
        assert r.json()["result"]["isError"] and r.json()["result"]["structuredContent"]["status"] == 422


#: ALFWorld's task-id knobs that size a scene, with their documented bounds (generator.Knobs).
ALFWORLD_KNOBS = {
    "max_instances": (1, MAX_INSTANCES),
    "distractors": (0, MAX_DISTRACTORS),
    "max_receptacles": (2, MAX_RECEPTACLES),
    "phrasing": (0, 1),
}


@pytest.fixture(scope="module")
def alfworld() -> Iterator[TestClient]:
    with serve("alfworld") as c:
        yield c


@pytest.mark.parametrize("knob", sorted(ALFWORLD_KNOBS))
def test_alfworld_task_id_knobs_are_refused_past_their_bounds(alfworld: TestClient, knob: str) -> None:
    low, high = ALFWORLD_KNOBS[knob]
    for value in (high + 1, 2**63, low - 1, -1):
        task_id = f"gen-1?{knob}={value}"
        for path in ("/sessions", "/create"):
            r = alfworld.post(path, json={"task_id": task_id})
            assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_task", (task_id, r.text)
            assert str(high) in r.json()["error"]["message"] or knob == "phrasing", r.text
    # The bound itself is served.
    assert alfworld.post("/sessions", json={"task_id": f"gen-1?{knob}={high}"}).status_code == 201


def test_alfworld_generated_seeds_are_bounded_like_every_seed(alfworld: TestClient) -> None:
    assert alfworld.post("/sessions", json={"task_id": f"gen-{MAX_GEN_SEED}"}).status_code == 201
    for seed in (MAX_GEN_SEED + 1, 2**64, "9" * 200):
        r = alfworld.post("/sessions", json={"task_id": f"gen-{seed}"})
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_task", r.text
    r = alfworld.post("/sessions", json={"task_id": "gen--1"})
    assert r.status_code == 404, r.text


def test_mcp_tool_arguments_are_bounded(client: TestClient) -> None:
    sid = client.post("/sessions", json={"task_id": "train-1"}).json()["session_id"]
    for name, arguments in (
        ("list_tasks", {"offset": MAX_INT64 + 1}),
        ("list_tasks", {"limit": 1001}),
        ("call_episode_tools", {"session_id": sid, "calls": [{"name": "f", "arguments": {}}] * 65}),
    ):
        call = {"name": name, "arguments": arguments}
        r = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}, headers=MCP)
        result = r.json()["result"]
        assert result["isError"] and result["structuredContent"]["status"] == 422, (name, result)
