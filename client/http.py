"""EnvClient (sync) and AsyncEnvClient (async): httpx clients of the env-server protocol.

Both spread new sessions over one or several server URLs (replicas) round-robin, keep every
later call of a session on the server that holds it, retry what is safe to retry (see
client/retry.py) and turn error bodies into typed exceptions (client/errors.py).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import Any, Self

import httpx

from coevo import wire
from coevo.client import calls
from coevo.client.calls import Call
from coevo.client.errors import EnvClientError, ServerUnreachable, SessionNotFound, error_for
from coevo.client.retry import RETRY_STATUSES, RetryPolicy

DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=5.0)


def _urls(url_or_urls: str | Sequence[str]) -> list[str]:
    urls = [url_or_urls] if isinstance(url_or_urls, str) else list(url_or_urls)
    if not urls:
        raise ValueError("at least one server URL is needed")
    return [u.rstrip("/") for u in urls]


def _parse(call: Call, response: httpx.Response) -> Any:
    if response.is_success:
        data = response.json()
        return call.model.model_validate(data) if call.model else data
    try:
        detail = wire.ErrorBody.model_validate(response.json()).error
        code, message = detail.code, detail.message
    except Exception:
        code, message = "http_error", response.text[:500] or response.reason_phrase
    raise error_for(response.status_code, code, message)


class _Routing:
    """Which server holds which session; new sessions go round-robin."""

    def __init__(self, urls: list[str]) -> None:
        self.urls = urls
        self._next = itertools.cycle(urls)
        self._owner: dict[str, str] = {}

    def pick(self) -> str:
        return next(self._next)

    def remember(self, session_id: str, url: str) -> None:
        self._owner[session_id] = url

    def forget(self, session_id: str) -> None:
        self._owner.pop(session_id, None)

    def of(self, session_id: str) -> str:
        return self._owner.get(session_id, self.urls[0])

    def group(self, items: Sequence[tuple[str, str]]) -> dict[str, list[int]]:
        by_url: dict[str, list[int]] = {}
        for i, (session_id, _) in enumerate(items):
            by_url.setdefault(self.of(session_id), []).append(i)
        return by_url


def _merge_batches(
    items: Sequence[tuple[str, str]], groups: dict[str, list[int]], answers: Iterable[wire.BatchStepResponse]
) -> list[wire.BatchStepResult]:
    out: list[wire.BatchStepResult | None] = [None] * len(items)
    for indexes, answer in zip(groups.values(), answers):
        for i, result in zip(indexes, answer.results):
            out[i] = result
    return [r for r in out if r is not None]


# ============================================================================ sync
class Session:
    """One leased episode on a server. Use as a context manager so the lease is always released."""

    def __init__(self, client: EnvClient, url: str, first: wire.SessionResponse) -> None:
        self.client, self.url = client, url
        self.session_id = first.session_id
        self.observation, self.info = first.observation, first.info
        self.closed = False

    def step(self, action: str) -> wire.StepResponse:
        result = self.client._send(self.url, calls.step(self.session_id, action))
        self.observation, self.info = result.observation, result.info
        return result

    def reset(self, task_id: str | None = None, split: str | None = None, seed: int | None = None) -> wire.SessionResponse:
        result = self.client._send(self.url, calls.reset(self.session_id, task_id, split, seed))
        self.observation, self.info = result.observation, result.info
        return result

    def state(self) -> wire.SessionState:
        return self.client._send(self.url, calls.state(self.session_id))

    def expert_action(self) -> str | None:
        return self.client._send(self.url, calls.expert(self.session_id)).action

    def fork(self) -> Session:
        first = self.client._send(self.url, calls.fork(self.session_id))
        self.client._routing.remember(first.session_id, self.url)
        return Session(self.client, self.url, first)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.client._routing.forget(self.session_id)
        try:
            self.client._send(self.url, calls.close(self.session_id))
        except SessionNotFound:
            pass  # already expired or closed: the lease is gone either way

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EnvClient:
    """Synchronous client. `EnvClient("http://127.0.0.1:8000")` or a list of replica URLs."""

    def __init__(
        self,
        url_or_urls: str | Sequence[str],
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retries: int = 5,
        backoff: float = 0.1,
        http: httpx.Client | None = None,
    ) -> None:
        self._routing = _Routing(_urls(url_or_urls))
        self._retry = RetryPolicy(retries=retries, backoff=backoff)
        self._http = http or httpx.Client(timeout=timeout, limits=httpx.Limits(max_connections=64))

    @property
    def urls(self) -> list[str]:
        return self._routing.urls

    def _send(self, url: str, call: Call) -> Any:
        attempt = 0
        while True:
            try:
                response = self._http.request(call.method, url + call.path, json=call.body, params=call.params)
            except httpx.TransportError as exc:
                if attempt >= self._retry.retries or not self._retry.retryable(exc, call.idempotent):
                    raise ServerUnreachable(f"{call.method} {url}{call.path}: {exc!r}") from exc
                time.sleep(self._retry.wait(attempt))
                attempt += 1
                continue
            if response.status_code in RETRY_STATUSES and attempt < self._retry.retries:
                time.sleep(self._retry.wait(attempt, response.headers.get("retry-after")))
                attempt += 1
                continue
            return _parse(call, response)

    def health(self, url: str | None = None) -> wire.HealthResponse:
        return self._send(url or self.urls[0], calls.health())

    def info(self) -> wire.InfoResponse:
        return self._send(self.urls[0], calls.info())

    def tasks(self, split: str | None = None, offset: int = 0, limit: int = 100) -> wire.TaskListResponse:
        return self._send(self.urls[0], calls.tasks(split, offset, limit))

    def create(self, task_id: str | None = None, split: str | None = None, seed: int | None = None) -> Session:
        url = self._routing.pick()
        first = self._send(url, calls.create(task_id, split, seed))
        self._routing.remember(first.session_id, url)
        return Session(self, url, first)

    def batch_step(self, items: Sequence[tuple[str, str]]) -> list[wire.BatchStepResult]:
        """Step many sessions in one request per server; results in the order of `items`."""
        groups = self._routing.group(items)
        answers = [self._send(url, calls.batch_step([items[i] for i in idx])) for url, idx in groups.items()]
        return _merge_batches(items, groups, answers)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ============================================================================ async
class AsyncSession:
    """Async twin of `Session`: `async with await client.create() as s: await s.step(...)`."""

    def __init__(self, client: AsyncEnvClient, url: str, first: wire.SessionResponse) -> None:
        self.client, self.url = client, url
        self.session_id = first.session_id
        self.observation, self.info = first.observation, first.info
        self.closed = False

    async def step(self, action: str) -> wire.StepResponse:
        result = await self.client._send(self.url, calls.step(self.session_id, action))
        self.observation, self.info = result.observation, result.info
        return result

    async def reset(
        self, task_id: str | None = None, split: str | None = None, seed: int | None = None
    ) -> wire.SessionResponse:
        result = await self.client._send(self.url, calls.reset(self.session_id, task_id, split, seed))
        self.observation, self.info = result.observation, result.info
        return result

    async def state(self) -> wire.SessionState:
        return await self.client._send(self.url, calls.state(self.session_id))

    async def expert_action(self) -> str | None:
        return (await self.client._send(self.url, calls.expert(self.session_id))).action

    async def fork(self) -> AsyncSession:
        first = await self.client._send(self.url, calls.fork(self.session_id))
        self.client._routing.remember(first.session_id, self.url)
        return AsyncSession(self.client, self.url, first)

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.client._routing.forget(self.session_id)
        try:
            await self.client._send(self.url, calls.close(self.session_id))
        except SessionNotFound:
            pass

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        # Release even when the body was cancelled; shield so the DELETE itself is not cancelled.
        await asyncio.shield(self.close())


class AsyncEnvClient:
    """Asynchronous client for rollout engines that drive many sessions at once."""

    def __init__(
        self,
        url_or_urls: str | Sequence[str],
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retries: int = 5,
        backoff: float = 0.1,
        max_connections: int = 256,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self._routing = _Routing(_urls(url_or_urls))
        self._retry = RetryPolicy(retries=retries, backoff=backoff)
        self._http = http or httpx.AsyncClient(
            timeout=timeout,
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
        )

    @property
    def urls(self) -> list[str]:
        return self._routing.urls

    async def _send(self, url: str, call: Call) -> Any:
        attempt = 0
        while True:
            try:
                response = await self._http.request(call.method, url + call.path, json=call.body, params=call.params)
            except httpx.TransportError as exc:
                if attempt >= self._retry.retries or not self._retry.retryable(exc, call.idempotent):
                    raise ServerUnreachable(f"{call.method} {url}{call.path}: {exc!r}") from exc
                await asyncio.sleep(self._retry.wait(attempt))
                attempt += 1
                continue
            if response.status_code in RETRY_STATUSES and attempt < self._retry.retries:
                await asyncio.sleep(self._retry.wait(attempt, response.headers.get("retry-after")))
                attempt += 1
                continue
            return _parse(call, response)

    async def health(self, url: str | None = None) -> wire.HealthResponse:
        return await self._send(url or self.urls[0], calls.health())

    async def info(self) -> wire.InfoResponse:
        return await self._send(self.urls[0], calls.info())

    async def tasks(self, split: str | None = None, offset: int = 0, limit: int = 100) -> wire.TaskListResponse:
        return await self._send(self.urls[0], calls.tasks(split, offset, limit))

    async def create(
        self, task_id: str | None = None, split: str | None = None, seed: int | None = None
    ) -> AsyncSession:
        url = self._routing.pick()
        first = await self._send(url, calls.create(task_id, split, seed))
        self._routing.remember(first.session_id, url)
        return AsyncSession(self, url, first)

    async def batch_step(self, items: Sequence[tuple[str, str]]) -> list[wire.BatchStepResult]:
        groups = self._routing.group(items)
        answers = await asyncio.gather(
            *(self._send(url, calls.batch_step([items[i] for i in idx])) for url, idx in groups.items())
        )
        return _merge_batches(items, groups, answers)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


__all__ = ["AsyncEnvClient", "AsyncSession", "EnvClient", "EnvClientError", "Session"]
