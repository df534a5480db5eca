"""verifiers' own rollout machinery playing coevo episodes: CoevoEnv's run/finalize under
Env.serving() and run_episode, its agents, interception server and eval client, against a live
guess-env server. The model is a scripted OpenAI-compatible endpoint (chat completions over
HTTP, where verifiers' client sends its requests) that answers with the env's expert action,
read from the coevo server's GET /sessions/{id}/expert for the session the harness names."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI, Request

from coevo.client.launcher import free_port
from tests.server.live import live_server

vf = pytest.importorskip("verifiers.v1", reason="verifiers is not installed")

GUESS = "tests.fixture_env:GuessEnv"


class ExpertModel:
    """An OpenAI-compatible chat-completions endpoint whose every reply is the env's expert move."""

    def __init__(self, env_url: str, *, garble_first: bool = False, fixed: str | None = None) -> None:
        self.env_url, self.garble_first, self.fixed = env_url, garble_first, fixed
        self.requests: list[dict[str, Any]] = []
        self.app = FastAPI()
        self.app.post("/v1/chat/completions")(self.complete)

    async def complete(self, request: Request) -> dict[str, Any]:
        body = await request.json()
        session = request.headers["x-coevo-session"]
        self.requests.append({"session": session, "messages": body["messages"], "model": body["model"]})
        if self.fixed is not None:
            text = self.fixed
        elif self.garble_first and sum(r["session"] == session for r in self.requests) == 1:
            text = "Thought: I am not sure yet."  # no Action line: the env must not be stepped
        else:
            async with httpx.AsyncClient() as client:
                expert = (await client.get(f"{self.env_url}/sessions/{session}/expert")).json()["action"]
            text = f"Thought: the expert's move.\nAction: {expert}"
        return {
            "id": f"cmpl-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
            "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }  # fmt: skip


@contextmanager
def serve(app: FastAPI) -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, name="expert-model", daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the scripted model server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture
def guess_url() -> Iterator[str]:
    with live_server(GUESS) as url:
        yield url


def _play(env: Any, model_url: str) -> list[Any]:
    ctx = vf.ModelContext(model="scripted-expert", client=vf.EvalClientConfig(base_url=model_url))

    async def play() -> list[Any]:
        async with env.serving():
            return [await env.run_episode(task, ctx) for task in env.taskset]

    return asyncio.run(play())


def test_expert_episodes_earn_reward_one(guess_url: str) -> None:
    from coevo.client import EnvClient
    from coevo.integrations.verifiers import CoevoEnv, load_environment

    model = ExpertModel(guess_url)
    env = load_environment(guess_url, split="train", limit=2)
    assert isinstance(env, CoevoEnv)
    with serve(model.app) as model_url:
        episodes = _play(env, model_url)
    assert len(episodes) == 2
    for episode in episodes:
        assert episode.ok, episode.errors
        (trace,) = episode.traces
        assert trace.reward == 1.0
        assert trace.metrics["coevo_done"] == 1.0
        steps = int(trace.metrics["coevo_steps"])
        assert steps > 1, "binary search on 1..100 takes several guesses"
        assert trace.num_turns == steps  # one model call per env step, each on the trace
    # Every request carried the whole conversation: the env's opening turns, then its answers.
    by_session: dict[str, list[list[dict[str, Any]]]] = {}
    for r in model.requests:
        by_session.setdefault(r["session"], []).append(r["messages"])
    assert len(by_session) == 2
    for calls in by_session.values():
        assert [m["role"] for m in calls[0]] == ["user", "assistant", "user"]
        assert "Guess it." in calls[0][-1]["content"]
        assert len(calls[-1]) == len(calls[0]) + 2 * (len(calls) - 1)
        assert calls[-1][-1]["content"].startswith("higher") or calls[-1][-1]["content"].startswith("lower")
    with EnvClient(guess_url) as client:
        assert client.health().sessions == 0  # every lease released


def test_unreadable_reply_gets_format_feedback_not_a_step(guess_url: str) -> None:
    from coevo.integrations.verifiers import load_environment

    model = ExpertModel(guess_url, garble_first=True)
    env = load_environment(guess_url, split="test", limit=1)
    with serve(model.app) as model_url:
        (episode,) = _play(env, model_url)
    assert episode.ok, episode.errors
    (trace,) = episode.traces
    assert trace.reward == 1.0
    assert trace.metrics["coevo_invalid_replies"] == 1.0
    assert trace.num_turns == trace.metrics["coevo_steps"] + 1
    second = model.requests[1]["messages"]
    assert second[-2]["content"] == "Thought: I am not sure yet."
    assert "Action:" in second[-1]["content"]  # the env's format hint, not an observation


def test_taskset_needs_a_url() -> None:
    from coevo.integrations.verifiers import load_environment

    with pytest.raises(ValueError, match="url"):
        list(load_environment("").taskset)


def test_an_env_error_is_never_handed_on_as_a_reward() -> None:
    """The env raises on the agent's action: the episode ends env_error, finalize records no
    reward for it (only the coevo_unscored metric) and the rollout fails, so verifiers keeps it
    out of training; the lease is released, reporting nothing the server did not see."""
    from coevo.client import EnvClient
    from coevo.integrations.verifiers import load_environment

    with live_server("tests.faulty_env:FaultyGuessEnv") as url:
        model = ExpertModel(url, fixed="Thought: let me break it.\nAction: crash")
        env = load_environment(url, split="train", limit=1)
        with serve(model.app) as model_url:
            (episode,) = _play(env, model_url)
        assert not episode.ok and "env_error" in str(episode.errors)
        (trace,) = episode.traces
        assert trace.metrics.get("coevo_unscored") == 1.0
        assert "coevo_reward" not in trace.rewards  # no reward at all, not a reward of 0
        with EnvClient(url) as client:
            assert client.health().sessions == 0
