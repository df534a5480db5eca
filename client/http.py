"""EnvClient (sync) and AsyncEnvClient (async): httpx clients of the env-server protocol.

Both spread new sessions over the replicas of an env (a list of URLs, or a headless Service's
DNS name: client/discovery.py) round-robin, fail over to the next replica when one cannot be
reached and remember it as dead for a while (client/replicas.py), keep every later call of a
session on the replica that created it, retry what is safe to retry (client/retry.py) and turn
error bodies into typed exceptions (client/errors.py). Both drive the same I/O-free plan of a
call's attempts (client/attempt.py), one blocking, one awaiting.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Sequence
from types import TracebackType
from typing import Any, Self

import httpx

from coevo import wire
from coevo.client import attempt, calls
from coevo.client.calls import Call
from coevo.client.discovery import DnsService, NoReplicas, StaticUrls
from coevo.client.errors import EnvClientError, SessionNotFound
from coevo.client.replicas import Replicas
from coevo.client.retry import RetryPolicy

DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=5.0)
#: How long a replica that refused a connection is tried only after every other one.
DEFAULT_DEAD_FOR_S = 30.0

Target = str | Sequence[str] | DnsService | StaticUrls


def _place(
    results: list[wire.BatchStepResult | None],
    groups: dict[str, list[int]],
    answers: Iterable[wire.BatchStepResponse],
) -> None:
    """Put each replica's answers at their items' places in `results`."""
    for indexes, answer in zip(groups.values(), answers):
        for i, result in zip(indexes, answer.results):
            results[i] = result


def _moved(groups: dict[str, list[int]], results: list[wire.BatchStepResult | None]) -> dict[str, list[int]]:
    """Indexes of the items a replica answered 409 for, naming another replica as the owner of
    their session (`BatchStepResult.owner`), by that owner: sent on there, as a single call is."""
    moved: dict[str, list[int]] = {}
    for url, indexes in groups.items():
        for i in indexes:
            result = results[i]
            owner = result.owner.rstrip("/") if result is not None and result.owner else None
            if result is not None and result.status == 409 and owner and owner != url.rstrip("/"):
                moved.setdefault(owner, []).append(i)
    return moved


def _remember_owners(routing: Replicas, items: Sequence[tuple[str, str]], moved: dict[str, list[int]]) -> None:
    for url, indexes in moved.items():
        for i in indexes:
            routing.remember(items[i][0], url)


# ============================================================================ sync
class Session:
    """One leased episode on a server. Use as a context manager so the lease is always released."""

    def __init__(self, client: EnvClient, url: str, first: wire.SessionResponse) -> None:
        self.client, self.url = client, url
        self.session_id = first.session_id
        self.observation, self.info = first.observation, first.info
        self.closed = False

    def _send(self, call: Call) -> Any:
        """`call` on the session's server, following it to another replica that took it over."""
        result, url = self.client._attempt(call, self.url)
        if url != self.url:
            self.url = url
            self.client._routing.remember(self.session_id, url)
        return result

    def step(self, action: str) -> wire.StepResponse:
        result = self._send(calls.step(self.session_id, action))
        self.observation, self.info = result.observation, result.info
        return result

    def reset(
        self, task_id: str | None = None, split: str | None = None, seed: int | None = None
    ) -> wire.SessionResponse:
        result = self._send(calls.reset(self.session_id, task_id, split, seed))
        self.observation, self.info = result.observation, result.info
        return result

    def state(self) -> wire.SessionState:
        return self._send(calls.state(self.session_id))

    def expert_action(self) -> str | None:
        return self._send(calls.expert(self.session_id)).action

    def fork(self) -> Session:
        first = self._send(calls.fork(self.session_id))
        self.client._routing.remember(first.session_id, self.url)
        return Session(self.client, self.url, first)

    def close(self, status: str | None = None, error: str | None = None) -> None:
        """Release the session; `status` and `error` report why an unfinished episode is left
        (policy_error, transport_error: coevo.end_status.CLIENT_REPORTED)."""
        if self.closed:
            return
        self.closed = True
        self.client._routing.forget(self.session_id)
        try:
            self._send(calls.close(self.session_id, status, error))
        except SessionNotFound:
            pass  # already expired or closed: the lease is gone either way

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EnvClient:
    """Synchronous client. `EnvClient("http://127.0.0.1:8000")`, a list of replica URLs, or
    `EnvClient("dns+http://coevo-myenv:8000")` for every replica behind a DNS name."""

    def __init__(
        self,
        url_or_urls: Target,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retries: int = 5,
        backoff: float = 0.1,
        dead_for_s: float = DEFAULT_DEAD_FOR_S,
        http: httpx.Client | None = None,
    ) -> None:
        self._routing = Replicas(url_or_urls, dead_for_s=dead_for_s)
        self._retry = RetryPolicy(retries=retries, backoff=backoff)
        self._http = http or httpx.Client(timeout=timeout, limits=httpx.Limits(max_connections=64))

    @property
    def urls(self) -> list[str]:
        return self._routing.urls

    def _send(self, url: str, call: Call) -> Any:
        """`call` on one replica (the one holding its session): retried there, never elsewhere."""
        return self._attempt(call, url)[0]

    def _send_any(self, call: Call) -> Any:
        """`call` that no session owns: the next live replica, failing over to the others."""
        return self._attempt(call, None)[0]

    def _attempt(self, call: Call, url: str | None) -> tuple[Any, str]:
        """(parsed answer, the replica that gave it): client/attempt.py's plan, with blocking I/O."""
        steps = attempt.plan(call, url, self._routing, self._retry)
        outcome: attempt.Outcome = None
        while True:
            try:
                step = steps.send(outcome)
            except StopIteration as done:
                return done.value
            outcome = None
            if isinstance(step, attempt.Send):
                try:
                    outcome = self._http.request(
                        call.method, step.target + call.path, json=call.body, params=call.params
                    )
                except httpx.TransportError as exc:
                    outcome = exc
            elif isinstance(step, attempt.Wait):
                time.sleep(step.seconds)
            else:
                try:
                    self._routing.refresh()
                except NoReplicas as exc:
                    outcome = exc

    def health(self, url: str | None = None) -> wire.HealthResponse:
        """One replica's health (`url`), or that of the first replica that answers."""
        return self._send(url, calls.health()) if url else self._send_any(calls.health())

    def info(self) -> wire.InfoResponse:
        return self._send_any(calls.info())

    def tasks(
        self,
        split: str | None = None,
        offset: int = 0,
        limit: int = 100,
        *,
        p_min: float | None = None,
        p_max: float | None = None,
        policy: str | None = None,
        min_episodes: int | None = None,
    ) -> wire.TaskListResponse:
        """A page of a split's tasks; the difficulty filters as in calls.tasks."""
        call = calls.tasks(split, offset, limit, p_min=p_min, p_max=p_max, policy=policy, min_episodes=min_episodes)
        return self._send_any(call)

    def create(
        self,
        task_id: str | None = None,
        split: str | None = None,
        seed: int | None = None,
        *,
        policy: str | None = None,
        run: str | None = None,
    ) -> Session:
        """A new session; `policy` and `run` tag every episode the server records for it."""
        first, url = self._attempt(calls.create(task_id, split, seed, policy, run), None)
        self._routing.remember(first.session_id, url)
        return Session(self, url, first)

    def batch_step(self, items: Sequence[tuple[str, str]]) -> list[wire.BatchStepResult]:
        """Step many sessions in one request per server; results in the order of `items`."""
        groups = self._routing.group([session_id for session_id, _ in items])
        results: list[wire.BatchStepResult | None] = [None] * len(items)
        for hops in range(attempt.MAX_OWNER_HOPS + 1):
            answers = [self._send(url, calls.batch_step([items[i] for i in idx])) for url, idx in groups.items()]
            _place(results, groups, answers)
            groups = _moved(groups, results)
            if not groups or hops == attempt.MAX_OWNER_HOPS:
                break
            _remember_owners(self._routing, items, groups)
        return [r for r in results if r is not None]

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

    async def _send(self, call: Call) -> Any:
        """`call` on the session's server, following it to another replica that took it over."""
        result, url = await self.client._attempt(call, self.url)
        if url != self.url:
            self.url = url
            self.client._routing.remember(self.session_id, url)
        return result

    async def step(self, action: str) -> wire.StepResponse:
        result = await self._send(calls.step(self.session_id, action))
        self.observation, self.info = result.observation, result.info
        return result

    async def reset(
        self, task_id: str | None = None, split: str | None = None, seed: int | None = None
    ) -> wire.SessionResponse:
        result = await self._send(calls.reset(self.session_id, task_id, split, seed))
        self.observation, self.info = result.observation, result.info
        return result

    async def state(self) -> wire.SessionState:
        return await self._send(calls.state(self.session_id))

    async def expert_action(self) -> str | None:
        return (await self._send(calls.expert(self.session_id))).action

    async def fork(self) -> AsyncSession:
        first = await self._send(calls.fork(self.session_id))
        self.client._routing.remember(first.session_id, self.url)
        return AsyncSession(self.client, self.url, first)

    async def close(self, status: str | None = None, error: str | None = None) -> None:
        """Release the session; `status` and `error` report why an unfinished episode is left
        (policy_error, transport_error: coevo.end_status.CLIENT_REPORTED)."""
        if self.closed:
            return
        self.closed = True
        self.client._routing.forget(self.session_id)
        try:
            await self._send(calls.close(self.session_id, status, error))
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
        url_or_urls: Target,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retries: int = 5,
        backoff: float = 0.1,
        dead_for_s: float = DEFAULT_DEAD_FOR_S,
        max_connections: int = 256,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self._routing = Replicas(url_or_urls, dead_for_s=dead_for_s)
        self._retry = RetryPolicy(retries=retries, backoff=backoff)
        self._http = http or httpx.AsyncClient(
            timeout=timeout,
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
        )

    @property
    def urls(self) -> list[str]:
        return self._routing.urls

    async def _send(self, url: str, call: Call) -> Any:
        """`call` on one replica (the one holding its session): retried there, never elsewhere."""
        return (await self._attempt(call, url))[0]

    async def _send_any(self, call: Call) -> Any:
        """`call` that no session owns: the next live replica, failing over to the others."""
        return (await self._attempt(call, None))[0]

    async def _attempt(self, call: Call, url: str | None) -> tuple[Any, str]:
        """(parsed answer, the replica that gave it): client/attempt.py's plan, awaited; a DNS
        lookup blocks, so it runs off the event loop."""
        steps = attempt.plan(call, url, self._routing, self._retry)
        outcome: attempt.Outcome = None
        while True:
            try:
                step = steps.send(outcome)
            except StopIteration as done:
                return done.value
            outcome = None
            if isinstance(step, attempt.Send):
                try:
                    outcome = await self._http.request(
                        call.method, step.target + call.path, json=call.body, params=call.params
                    )
                except httpx.TransportError as exc:
                    outcome = exc
            elif isinstance(step, attempt.Wait):
                await asyncio.sleep(step.seconds)
            else:
                try:
                    await asyncio.to_thread(self._routing.refresh)
                except NoReplicas as exc:
                    outcome = exc

    async def health(self, url: str | None = None) -> wire.HealthResponse:
        """One replica's health (`url`), or that of the first replica that answers."""
        return await (self._send(url, calls.health()) if url else self._send_any(calls.health()))

    async def info(self) -> wire.InfoResponse:
        return await self._send_any(calls.info())

    async def tasks(
        self,
        split: str | None = None,
        offset: int = 0,
        limit: int = 100,
        *,
        p_min: float | None = None,
        p_max: float | None = None,
        policy: str | None = None,
        min_episodes: int | None = None,
    ) -> wire.TaskListResponse:
        """A page of a split's tasks; the difficulty filters as in calls.tasks."""
        call = calls.tasks(split, offset, limit, p_min=p_min, p_max=p_max, policy=policy, min_episodes=min_episodes)
        return await self._send_any(call)

    async def create(
        self,
        task_id: str | None = None,
        split: str | None = None,
        seed: int | None = None,
        *,
        policy: str | None = None,
        run: str | None = None,
    ) -> AsyncSession:
        first, url = await self._attempt(calls.create(task_id, split, seed, policy, run), None)
        self._routing.remember(first.session_id, url)
        return AsyncSession(self, url, first)

    async def batch_step(self, items: Sequence[tuple[str, str]]) -> list[wire.BatchStepResult]:
        groups = self._routing.group([session_id for session_id, _ in items])
        results: list[wire.BatchStepResult | None] = [None] * len(items)
        for hops in range(attempt.MAX_OWNER_HOPS + 1):
            answers = await asyncio.gather(
                *(self._send(url, calls.batch_step([items[i] for i in idx])) for url, idx in groups.items())
            )
            _place(results, groups, answers)
            groups = _moved(groups, results)
            if not groups or hops == attempt.MAX_OWNER_HOPS:
                break
            _remember_owners(self._routing, items, groups)
        return [r for r in results if r is not None]

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


__all__ = ["AsyncEnvClient", "AsyncSession", "EnvClient", "EnvClientError", "Session"]
