"""One call's attempts, without I/O: which replica to ask next, when to wait, when to follow a
session to its owner and when to give up. EnvClient and AsyncEnvClient drive the same plan, one
with blocking calls and one with awaits, so the retry and fail-over rules exist once.

`plan(call, url, routing, retry)` is a generator. It yields what to do next and is sent what
came of it:
- `Send(target)`: send the call there; send back the `httpx.Response` or the `httpx.TransportError`;
- `Wait(seconds)`: sleep, then send back None;
- `Refresh()`: re-resolve the replica list (a DNS lookup: the async driver runs it off the event
  loop), then send back None, or the `NoReplicas` it raised.
It returns (the parsed answer, the replica that gave it) or raises the client's typed error.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, NoReturn, cast

import httpx

from coevo import wire
from coevo.client.calls import Call
from coevo.client.discovery import NoReplicas
from coevo.client.errors import EnvClientError, ServerUnreachable, error_for
from coevo.client.replicas import Replicas
from coevo.client.retry import RETRY_STATUSES, LastFailure, RetryPolicy

#: Most replicas one call follows (409 session_owned_elsewhere) before it reports the 409.
MAX_OWNER_HOPS = 3


@dataclass(frozen=True)
class Send:
    target: str


@dataclass(frozen=True)
class Wait:
    seconds: float


@dataclass(frozen=True)
class Refresh:
    pass


Step = Send | Wait | Refresh
Outcome = httpx.Response | httpx.TransportError | NoReplicas | None
Plan = Generator[Step, Outcome, tuple[Any, str]]


def error_of(response: httpx.Response) -> EnvClientError:
    """The typed error an error answer stands for (its JSON body's code, else the HTTP status)."""
    try:
        detail = wire.ErrorBody.model_validate(response.json()).error
        code, message = detail.code, detail.message
    except Exception:
        code, message = "http_error", response.text[:500] or response.reason_phrase
    return error_for(response.status_code, code, message)


def parse(call: Call, response: httpx.Response) -> Any:
    """A success answer as the call's model (raw JSON when it has none); an error raised."""
    if response.is_success:
        data = response.json()
        return call.model.model_validate(data) if call.model else data
    raise error_of(response)


def owner_of(response: httpx.Response, url: str | None, hops: int) -> str | None:
    """The replica that owns the session a session call named, from a 409 that says so."""
    if response.status_code != 409 or url is None or hops >= MAX_OWNER_HOPS:
        return None
    owner = response.headers.get(wire.OWNER_HEADER)
    return owner.rstrip("/") if owner and owner.rstrip("/") != url.rstrip("/") else None


def give_up(call: Call, failure: LastFailure, rounds: int) -> NoReturn:
    """Report how the last round ended: a busy answer's error, or no replica reachable, naming
    every replica tried; the chained httpx/httpcore errors add dozens of lines and nothing more."""
    if failure.response is not None:
        raise error_of(failure.response)
    if not failure.tried:
        raise ServerUnreachable(f"{call.method} {failure.where}{call.path}: {failure.error}") from None
    tried = "; ".join(f"{url} ({why})" for url, why in failure.tried.items())
    plural = "s" if len(failure.tried) > 1 else ""
    raise ServerUnreachable(
        f"{call.method} {call.path}: no env server reachable at {len(failure.tried)} URL{plural} "
        f"after {rounds} tries each: {tried}. Is the server running (`coevo serve <env> --port <port>`)?"
    ) from None


def plan(call: Call, url: str | None, routing: Replicas, retry: RetryPolicy) -> Plan:
    """`call` on `url` (the replica holding its session: retried there, never elsewhere), or with
    `url` None on the live replicas in turn, failing over; busy answers and transport errors the
    call may repeat are retried in rounds with backoff, a 409 naming the session's owner is
    followed at once."""
    failure = LastFailure()
    attempt = hops = 0
    while True:
        for target in (yield from _targets(url, routing, failure)):
            outcome = yield Send(target)
            if isinstance(outcome, httpx.TransportError):
                routing.report_failure(target, outcome)
                if not retry.retryable(outcome, call.idempotent):
                    raise ServerUnreachable(f"{call.method} {target}{call.path}: {outcome!r}") from outcome
                failure.unreachable(target, outcome)
                continue
            # a response, duck-typed: Starlette's TestClient answers with httpx2's Response class
            response = cast(httpx.Response, outcome)
            if response.status_code in RETRY_STATUSES:
                failure.busy(target, response)
                continue
            owner = owner_of(response, url, hops)
            if owner is not None:  # another replica serves this session: ask it at once
                url, hops = owner, hops + 1
                break
            routing.report_success(target)
            return parse(call, response), target
        else:
            if attempt >= retry.retries:
                give_up(call, failure, attempt + 1)
            yield Wait(retry.wait(attempt, failure.retry_after()))
            attempt += 1


def _targets(url: str | None, routing: Replicas, failure: LastFailure) -> Generator[Step, Outcome, list[str]]:
    if url is not None:
        return [url]
    try:
        if routing.stale() and isinstance(error := (yield Refresh()), NoReplicas):
            raise error
        return routing.candidates()
    except NoReplicas as exc:
        failure.failed(str(exc), exc)
        return []
