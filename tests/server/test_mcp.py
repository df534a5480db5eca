"""MCP at /mcp, driven by the `mcp` SDK's own client against a live server, for every env.

Sessions started over MCP are checked from the REST side (same leases), and for tool-calling
envs an episode played through the episode's own functions is compared step by step with the
expert's text actions on a fork of the same state.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("mcp")
from mcp import Client  # noqa: E402

from coevo.envs import registry  # noqa: E402
from coevo.envs.apibank.parsing import parse_api_call  # noqa: E402
from coevo.envs.bfcl.calls import decode_reply  # noqa: E402
from coevo.envs.birdsql.actions import extract_sql  # noqa: E402
from coevo.envs.toolusage.action import parse_line  # noqa: E402
from coevo.envs.toolusage.env import ToolEnv  # noqa: E402
from tests.server.live import live_server  # noqa: E402

ENV_NAMES = registry.names()
TOOLS = {
    "list_tasks",
    "start_episode",
    "act",
    "fork_episode",
    "expert_hint",
    "close_episode",
    "list_episode_tools",
    "call_episode_tools",
}


@pytest.fixture(scope="module", params=ENV_NAMES)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    db = tmp_path_factory.mktemp(f"mcp-{request.param}") / "store.db"
    with live_server(request.param, db_url=f"sqlite:///{db}") as url:
        yield request.param, url


async def call(client: Client, name: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.structured_content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def failing(client: Client, name: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert result.is_error
    return result.structured_content  # type: ignore[return-value]


def expert_calls(env: str, action: str) -> list[dict[str, Any]] | None:
    """The expert's text action as episode-tool calls (None: a text reply, sent with `act`)."""
    if env == "bfcl":
        decoded = decode_reply(action)
        return [{"name": c.name, "arguments": c.kwargs} for c in decoded.calls] or None
    if env == "apibank":
        parsed = parse_api_call(action) if action.startswith("API-Request:") else None
        return None if parsed is None else [{"name": parsed.name, "arguments": dict(parsed.arguments)}]
    if env == "travelplanner":
        match = re.match(r"^(\w+)\[(.*)\]$", action, re.DOTALL)
        return None if match is None else [{"name": match.group(1), "raw": match.group(2)}]
    if env == "birdsql":
        return [{"name": "execute_sql", "arguments": {"sql": extract_sql(action)}}]
    if issubclass(registry.spec(env).load(), ToolEnv):  # AgentGym's tool envs: one action line
        # the native expert's action is the text after "Action:" (the client's reply adds it)
        line = parse_line(action if action.lstrip().startswith("Action:") else f"Action: {action}")
        return None if line is None else [{"name": line.name, "arguments": line.params}]
    return None


def test_mcp_episode_is_a_rest_session(server: tuple[str, str]) -> None:
    env, url = server
    info = httpx.get(f"{url}/info").json()
    first = httpx.get(f"{url}/tasks", params={"limit": 1}).json()["tasks"][0]["task_id"]

    async def scenario() -> None:
        async with Client(f"{url}/mcp") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == TOOLS
            assert info["action_format"] in tools["act"].input_schema["properties"]["action"]["description"]
            assert tools["act"].output_schema is not None

            listing = await call(client, "list_tasks", limit=2)
            assert listing["split"] == info["default_split"] and listing["tasks"][0]["task_id"] == first

            started = await call(client, "start_episode", task_id=first, seed=0)
            sid = started["session_id"]
            rest = httpx.post(f"{url}/sessions", json={"task_id": first, "seed": 0}).json()
            assert started["observation"] == rest["observation"]
            httpx.delete(f"{url}/sessions/{rest['session_id']}")

            hint = await call(client, "expert_hint", session_id=sid)
            action = hint["action"] if hint["action"] is not None else "look"
            stepped = await call(client, "act", session_id=sid, action=action)
            state = httpx.get(f"{url}/sessions/{sid}").json()  # the same lease, seen over REST
            assert state["steps"] == 1 and state["task_id"] == first
            assert state["last_observation"] == stepped["observation"]

            fork = await call(client, "fork_episode", session_id=sid)
            assert fork["session_id"] != sid and fork["observation"] == stepped["observation"]
            assert httpx.get(f"{url}/sessions/{fork['session_id']}").json()["steps"] == 1

            for closing in (sid, fork["session_id"]):
                assert (await call(client, "close_episode", session_id=closing))["closed"] is True
            assert httpx.get(f"{url}/sessions/{sid}").status_code == 404
            gone = await failing(client, "act", session_id=sid, action=action)
            assert gone["status"] == 404 and gone["error"]["code"] == "session_not_found"
            bad = await failing(client, "act", session_id=sid)
            assert bad["status"] == 422 and "action" in bad["error"]["message"]
            unknown = await failing(client, "start_episode", task_id="no-such-task")
            assert unknown["status"] == 404 and unknown["error"]["code"] == "unknown_task"

    asyncio.run(scenario())


def test_episode_tools_play_like_the_expert(server: tuple[str, str]) -> None:
    """Where an env offers tools, calling them reproduces the expert's text actions exactly."""
    env, url = server
    first = httpx.get(f"{url}/tasks", params={"limit": 1}).json()["tasks"][0]["task_id"]

    async def scenario() -> None:
        async with Client(f"{url}/mcp", mode="legacy") as client:  # the 2025 handshake era too
            started = await call(client, "start_episode", task_id=first, seed=0)
            sid = started["session_id"]
            listed = await call(client, "list_episode_tools", session_id=sid)
            assert listed["tools"] == started["tools"]
            if not started["tools"]:
                refused = await failing(
                    client, "call_episode_tools", session_id=sid, calls=[{"name": "anything", "arguments": {}}]
                )
                assert refused["error"]["code"] == "unknown_tool"
                return
            for tool in started["tools"]:
                assert tool["input_schema"]["type"] == "object" and tool["name"]
            twin = (await call(client, "fork_episode", session_id=sid))["session_id"]
            used_tools = 0
            for _ in range(40):
                expert = httpx.get(f"{url}/sessions/{twin}/expert").json()["action"]
                if expert is None:
                    break
                want = httpx.post(f"{url}/sessions/{twin}/step", json={"action": expert}).json()
                calls = expert_calls(env, expert)
                if calls is None:
                    got = await call(client, "act", session_id=sid, action=expert)
                else:
                    if env == "travelplanner":
                        calls = [_travelplanner_call(started["tools"], calls[0])]
                    got = await call(client, "call_episode_tools", session_id=sid, calls=calls)
                    used_tools += 1
                assert (got["observation"], got["reward"], got["done"]) == (
                    want["observation"],
                    want["reward"],
                    want["done"],
                )
                if want["done"] or want["truncated"]:
                    break
            assert used_tools > 0
            unknown = await failing(
                client, "call_episode_tools", session_id=sid, calls=[{"name": "no_such_function", "arguments": {}}]
            )
            assert unknown["error"]["code"] == "unknown_tool"

    asyncio.run(scenario())


def _travelplanner_call(tools: list[dict[str, Any]], raw: dict[str, Any]) -> dict[str, Any]:
    schema = next(t for t in tools if t["name"] == raw["name"])["input_schema"]
    keys = list(schema["properties"])
    values = [raw["raw"]] if len(keys) == 1 else [v.strip() for v in raw["raw"].split(",")]
    return {"name": raw["name"], "arguments": dict(zip(keys, values))}


def test_mcp_sessions_share_the_rest_capacity() -> None:
    with live_server("guess", max_sessions=1) as url:
        held = httpx.post(f"{url}/sessions", json={"seed": 1})
        assert held.status_code == 201

        async def scenario() -> dict[str, Any]:
            async with Client(f"{url}/mcp") as client:
                return await failing(client, "start_episode", seed=2)

        full = asyncio.run(scenario())
        assert full["status"] == 429 and full["error"]["code"] == "capacity_exceeded"
