"""The chat-completions policy against a scripted endpoint (httpx mock transport): request
shape, retries with Retry-After, immediate failure on client errors, the concurrency cap."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from coevo.client.policies.base import PolicyRequest, Sampling
from coevo.client.policies.openai_compat import ChatCompletionError, OpenAIChatPolicy


def _answer(text: str) -> httpx.Response:
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": text}}]})


def _requests(n: int) -> list[PolicyRequest]:
    return [PolicyRequest([{"role": "user", "content": f"task {i}"}], "alfworld") for i in range(n)]


def _policy(handler, **kwargs) -> OpenAIChatPolicy:  # type: ignore[no-untyped-def]
    http = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return OpenAIChatPolicy("my-model", base_url="http://llm/v1", api_key="k", http=http, backoff_s=0.001, **kwargs)


def test_request_body_and_answers() -> None:
    seen: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url == "http://llm/v1/chat/completions"
        assert request.headers["authorization"] == "Bearer k"
        body = json.loads(request.content)
        seen.append(body)
        return _answer("Thought: ok\nAction: " + body["messages"][0]["content"])

    policy = _policy(handler)
    replies = asyncio.run(policy.act(_requests(3), Sampling(temperature=0.7, top_p=0.9, max_new_tokens=32, seed=5)))
    assert replies == [f"Thought: ok\nAction: task {i}" for i in range(3)]
    assert seen[0]["model"] == "my-model" and seen[0]["max_tokens"] == 32
    assert seen[0]["temperature"] == 0.7 and seen[0]["top_p"] == 0.9 and seen[0]["seed"] == 5


def test_rate_limits_and_server_errors_are_retried() -> None:
    calls = {"n": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        if calls["n"] == 1:
            return httpx.Response(429, headers={"retry-after": "0"}, text="slow down")
        if calls["n"] == 2:
            return httpx.Response(503, text="overloaded")
        if calls["n"] == 3:
            raise httpx.ConnectError("reset")
        return _answer("Action: look")

    assert asyncio.run(_policy(handler).act(_requests(1))) == ["Action: look"]
    assert calls["n"] == 4


def test_client_errors_fail_at_once_with_the_servers_message() -> None:
    calls = {"n": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        return httpx.Response(400, text='{"error": "unknown model"}')

    with pytest.raises(ChatCompletionError, match="400.*unknown model"):
        asyncio.run(_policy(handler).act(_requests(1)))
    assert calls["n"] == 1


def test_retries_are_bounded() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, text="boom")

    with pytest.raises(ChatCompletionError, match="after 3 attempts"):
        asyncio.run(_policy(handler, retries=2).act(_requests(1)))


def test_concurrency_is_capped() -> None:
    state = {"now": 0, "peak": 0}

    async def handler(request: httpx.Request) -> httpx.Response:
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        await asyncio.sleep(0.01)
        state["now"] -= 1
        return _answer("Action: look")

    replies = asyncio.run(_policy(handler, max_concurrency=3).act(_requests(10)))
    assert len(replies) == 10 and state["peak"] == 3
