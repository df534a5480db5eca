"""Retry policy shared by the sync and async clients.

Only requests that certainly did not act are retried: connection failures before the request
was sent, and 429/503 answers (the server refused before doing anything). A step whose answer
was lost in flight is never resent, because a second step would act twice; reads are idempotent
and are retried on any transport error. With several replicas, each round of attempts tries
every candidate replica once (client/replicas.py) before waiting for the next round.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import httpx

#: Transport errors raised before any byte of the request reached the server.
NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
RETRY_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class RetryPolicy:
    retries: int = 5
    backoff: float = 0.1  # first wait, seconds
    max_backoff: float = 5.0

    def wait(self, attempt: int, retry_after: str | None = None) -> float:
        """Seconds to wait before attempt `attempt + 1`; honours Retry-After when given."""
        if retry_after:
            try:
                return min(float(retry_after), self.max_backoff * 4)
            except ValueError:
                pass
        base = min(self.max_backoff, self.backoff * (2**attempt))
        return base * (0.5 + random.random() / 2)  # jitter keeps many clients from syncing

    def retryable(self, exc: Exception, idempotent: bool) -> bool:
        if isinstance(exc, NOT_SENT):
            return True
        return idempotent and isinstance(exc, httpx.TransportError)


@dataclass
class LastFailure:
    """How the latest attempt of a round failed: the wait before the next round and the error
    reported after the last one come from it."""

    where: str = ""
    error: Exception | None = None
    response: httpx.Response | None = None
    #: Every replica tried, with how it failed the last time: the error names them all.
    tried: dict[str, str] = field(default_factory=dict)

    def failed(self, where: str, error: Exception) -> None:
        self.where, self.error, self.response = where, error, None

    def unreachable(self, url: str, error: Exception) -> None:
        self.failed(url, error)
        self.tried[url] = reason(error)

    def busy(self, where: str, response: httpx.Response) -> None:
        self.where, self.error, self.response = where, None, response
        self.tried[where] = f"{response.status_code} {response.reason_phrase}"

    def retry_after(self) -> str | None:
        return self.response.headers.get("retry-after") if self.response is not None else None


def reason(error: Exception) -> str:
    """A transport error in a few words ("connection refused"), without httpx's wrapping."""
    text = str(error).strip()
    if text.startswith("[Errno") and "] " in text:
        text = text.split("] ", 1)[1]
    return text.lower() if text else type(error).__name__
