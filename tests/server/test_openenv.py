"""OpenEnv's own client (openenv-core's GenericEnvClient) runs episodes on every env over /ws,
and OpenEnv's HTTP /reset and /step live beside AgentGym's on the same paths."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("openenv")
from openenv import GenericEnvClient  # noqa: E402

from coevo.envs import registry  # noqa: E402
from tests.server.live import live_server  # noqa: E402

ENV_NAMES = registry.names()


@pytest.fixture(scope="module", params=ENV_NAMES)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    db = tmp_path_factory.mktemp(f"openenv-{request.param}") / "store.db"
    with live_server(request.param, db_url=f"sqlite:///{db}") as url:
        yield request.param, url


def test_generic_client_plays_an_expert_episode(server: tuple[str, str]) -> None:
    env, url = server
    first = httpx.get(f"{url}/tasks", params={"limit": 1}).json()["tasks"][0]["task_id"]
    # A slow env's first reset or expert call (SciWorld's simulator loads a game) may take longer
    # than httpx's default 5 s on a loaded machine; this test is about the protocol, not speed.
    rest = httpx.post(f"{url}/sessions", json={"seed": 7}, timeout=120).json()
    httpx.delete(f"{url}/sessions/{rest['session_id']}")

    async def scenario() -> str:
        async with GenericEnvClient(base_url=url) as client:
            seeded = await client.reset(seed=7)  # the same episode a REST create with seed 7 starts
            assert seeded.observation["text"] == rest["observation"]
            assert seeded.observation["info"]["task_id"] == rest["info"]["task_id"]
            assert seeded.reward is None and seeded.done is False
            result = await client.reset(task_id=first)
            sid = result.observation["session_id"]
            assert sid == seeded.observation["session_id"]  # one connection, one leased session
            assert result.observation["info"]["task_id"] == first
            steps, total = 0, 0.0
            while not result.done and steps < 60:
                action = httpx.get(f"{url}/sessions/{sid}/expert", timeout=120).json()["action"] or "look"
                result = await client.step({"action": action})
                steps += 1
                total += result.reward or 0.0
                assert isinstance(result.observation["text"], str)
            state = await client.state()
            assert state["step_count"] == steps and state["session_id"] == sid
            assert state["task_id"] == first and state["total_reward"] == pytest.approx(total)
            rest_state = httpx.get(f"{url}/sessions/{sid}").json()
            assert rest_state["steps"] == steps and rest_state["done"] == result.done
            if result.done:
                with pytest.raises(RuntimeError, match="episode_finished"):
                    await client.step({"action": "look"})
            return sid

    sid = asyncio.run(scenario())
    assert httpx.get(f"{url}/sessions/{sid}").status_code == 404  # released with the connection


def test_sync_wrapper_and_errors() -> None:
    with live_server("guess") as url:
        with GenericEnvClient(base_url=url).sync() as client:
            with pytest.raises(RuntimeError, match="reset before the first step"):
                client.step({"action": "guess 50"})
            first = client.reset(seed=3)
            assert "Guess" in first.observation["text"]
            with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
                client.step({"command": "guess 50"})
            with pytest.raises(RuntimeError, match="unknown_task"):
                client.reset(task_id="nope")
            assert client.step({"action": "guess 50"}).observation["text"] in ("higher", "lower", "correct")


def test_http_routes_share_paths_with_agentgym() -> None:
    with live_server("guess") as url:
        reset = httpx.post(f"{url}/reset", json={"seed": 3}).json()  # OpenEnv: no session named
        sid = reset["observation"]["session_id"]
        assert reset["done"] is False and reset["reward"] is None
        step = httpx.post(f"{url}/step", json={"action": {"action": "guess 50"}, "session_id": sid}).json()
        assert step["observation"]["text"] in ("higher", "lower", "correct")
        assert httpx.get(f"{url}/state", params={"session_id": sid}).json()["step_count"] == 1
        stateless = httpx.post(f"{url}/step", json={"action": {"action": "guess 50"}})
        assert stateless.status_code == 422 and "session_id" in stateless.json()["error"]["message"]

        created = httpx.post(f"{url}/create", json={}).json()  # AgentGym: names a session by id
        agentgym_reset: dict[str, Any] = httpx.post(f"{url}/reset", json={"id": created["id"], "game": 0}).json()
        assert agentgym_reset["id"] == created["id"] and agentgym_reset["task_id"] == "train-0"
        agentgym_step = httpx.post(f"{url}/step", json={"id": created["id"], "action": "guess 50"}).json()
        assert set(agentgym_step) >= {"observation", "reward", "done", "available_actions"}

        schema = httpx.get(f"{url}/schema").json()
        assert schema["action"]["required"] == ["action"]
        assert httpx.get(f"{url}/metadata").json()["name"] == "guess"
