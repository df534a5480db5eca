"""Any OpenAI-compatible chat-completions endpoint as a policy (vLLM, SGLang, hosted APIs).

Requests go out concurrently up to `max_concurrency` (the server batches them); each has a
timeout, and rate limits (429), server errors (5xx) and dropped connections are retried with
exponential backoff, honouring Retry-After. Other 4xx answers are the caller's mistake and
fail at once with the server's message.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Sequence
from typing import Any

import httpx

from coevo.client.policies.base import Policy, PolicyRequest, Sampling

RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})


class ChatCompletionError(RuntimeError):
    """The endpoint refused a request, or kept failing after every retry."""


class OpenAIChatPolicy(Policy):
    batched = False

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        sampling: Sampling | None = None,
        max_concurrency: int = 16,
        timeout_s: float = 120.0,
        retries: int = 5,
        backoff_s: float = 0.5,
        extra_body: dict[str, Any] | None = None,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        super().__init__(sampling)
        self.model = model
        self.name = f"openai:{model}"
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1").rstrip("/")
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = http or httpx.AsyncClient(timeout=httpx.Timeout(timeout_s, connect=10.0))
        self._headers = headers
        self._gate = asyncio.Semaphore(max_concurrency)
        self.retries, self.backoff_s = retries, backoff_s
        self.extra_body = dict(extra_body or {})

    def _body(self, request: PolicyRequest, sampling: Sampling) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m["role"], "content": m["content"]} for m in request.messages],
            "max_tokens": sampling.max_new_tokens,
            "temperature": max(0.0, sampling.temperature),
            "stop": ["\nObservation:"],
        }
        if not sampling.greedy:
            body["top_p"] = sampling.top_p
        if sampling.seed is not None:
            body["seed"] = sampling.seed
        body.update(self.extra_body)
        return body

    def _wait(self, attempt: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(60.0, float(retry_after))
            except ValueError:
                pass
        return self.backoff_s * (2**attempt) * (0.5 + random.random())

    async def _one(self, request: PolicyRequest, sampling: Sampling) -> str:
        body = self._body(request, sampling)
        url = f"{self.base_url}/chat/completions"
        attempt = 0
        async with self._gate:
            while True:
                retry_after = None
                try:
                    response = await self._http.post(url, json=body, headers=self._headers)
                except (httpx.TransportError, httpx.TimeoutException) as exc:
                    failure = f"{type(exc).__name__}: {exc}"
                else:
                    if response.is_success:
                        return self._content(response)
                    if response.status_code not in RETRY_STATUSES:
                        raise ChatCompletionError(f"{url} answered {response.status_code}: {response.text[:500]}")
                    failure = f"HTTP {response.status_code}: {response.text[:200]}"
                    retry_after = response.headers.get("retry-after")
                if attempt >= self.retries:
                    raise ChatCompletionError(f"{url} failed after {attempt + 1} attempts; last: {failure}")
                await asyncio.sleep(self._wait(attempt, retry_after))
                attempt += 1

    @staticmethod
    def _content(response: httpx.Response) -> str:
        try:
            data = response.json()
            content = data["choices"][0]["message"].get("content")
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise ChatCompletionError(f"unexpected chat-completions answer: {response.text[:300]}") from exc
        return content or ""

    async def act(self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None) -> list[str | None]:
        sampling = sampling or self.sampling
        return list(await asyncio.gather(*(self._one(r, sampling) for r in requests)))

    async def aclose(self) -> None:
        await self._http.aclose()

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": "openai", "model": self.model, "base_url": self.base_url}
