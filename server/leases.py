"""Sessions as leases: unguessable ids, one lock each, bounded count, idle TTL and max age.

A `Lease` is what the server keeps per session; it stays small (the env's own state plus a
few fields) because a server holds thousands. The `LeaseTable` owns admission (capacity,
with reservations so concurrent creates cannot overshoot), lookup, release, the memory
of recently released ids so a late request says "expired" instead of "unknown", and the
memory of ids the store was asked about and does not hold, so asking again costs nothing.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from coevo.envs.base import Env
from coevo.server.errors import CapacityExceeded, SessionFailed, SessionNotFound

#: token_urlsafe(24): 32 characters, 192 random bits.
_ID_BYTES = 24
_ID_SHAPE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")


def new_session_id() -> str:
    return secrets.token_urlsafe(_ID_BYTES)


def plausible_session_id(session_id: str) -> bool:
    """Cheap shape check so junk ids never reach the store."""
    return bool(_ID_SHAPE.match(session_id))


class Lease:
    """One live session. All env calls on it happen while holding `lock`."""

    __slots__ = (
        "session_id",
        "env",
        "lock",
        "created_at",
        "last_used",
        "episode_id",
        "total_reward",
        "last_observation",
        "last_info",
        "closed",
        "agentgym_reset",
        "claimed_at",
        "tags",
        "end_status",
        "env_error",
    )

    def __init__(
        self,
        session_id: str,
        env: Env,
        episode_id: str,
        observation: str,
        info: dict[str, Any],
        *,
        total_reward: float = 0.0,
        created_at: float | None = None,
    ) -> None:
        now = time.time()
        self.session_id = session_id
        self.env = env
        self.lock = asyncio.Lock()
        self.created_at = now if created_at is None else created_at
        self.last_used = now
        self.episode_id = episode_id
        self.total_reward = total_reward
        self.last_observation = observation
        self.last_info = info
        self.closed = False
        #: When this process claimed the session in the store (monotonic clock; ownership.py).
        self.claimed_at = time.monotonic()
        #: The task fields of the latest AgentGym /reset (e.g. its index and world type), which
        #: an env's AgentGym /detail repeats; None before one (or after a restart).
        self.agentgym_reset: dict[str, Any] | None = None
        #: The (policy, run) tags given on create, recorded with each of the session's episodes.
        self.tags: tuple[str | None, str | None] = (None, None)
        #: The episode's status as recorded: "running", then its end status (coevo.end_status).
        self.end_status = "running"
        #: The env's exception during this episode, if it raised (its end status if it ends unjudged).
        self.env_error: str | None = None


class LeaseTable:
    def __init__(
        self, capacity: int, *, idle_ttl_s: float, max_age_s: float, retry_after_s: int, remember: int = 100_000
    ) -> None:
        self.capacity = capacity
        self.idle_ttl_s = idle_ttl_s
        self.max_age_s = max_age_s
        self.retry_after_s = retry_after_s
        self._leases: dict[str, Lease] = {}
        self._reserved = 0
        self._released: OrderedDict[str, str] = OrderedDict()
        self._absent: OrderedDict[str, None] = OrderedDict()
        self._failed: OrderedDict[str, str] = OrderedDict()
        self._remember = remember

    def __len__(self) -> int:
        return len(self._leases)

    def __iter__(self) -> Iterator[Lease]:
        return iter(list(self._leases.values()))

    def __contains__(self, session_id: str) -> bool:
        return session_id in self._leases

    # ------------------------------------------------------------------ admission
    def reserve(self) -> None:
        """Claim a slot before the (possibly slow) env reset; `unreserve` when done either way."""
        if len(self._leases) + self._reserved >= self.capacity:
            raise CapacityExceeded(
                f"server is at capacity ({self.capacity} sessions); close idle sessions or retry",
                headers={"Retry-After": str(self.retry_after_s)},
            )
        self._reserved += 1

    def unreserve(self) -> None:
        self._reserved -= 1

    def add(self, lease: Lease) -> None:
        self._leases[lease.session_id] = lease
        self._released.pop(lease.session_id, None)
        self._absent.pop(lease.session_id, None)

    # ------------------------------------------------------------------ lookup and release
    def find(self, session_id: str) -> Lease | None:
        return self._leases.get(session_id)

    def released_reason(self, session_id: str) -> str | None:
        return self._released.get(session_id)

    def not_found(self, session_id: str) -> SessionNotFound | SessionFailed:
        failure = self._failed.get(session_id)
        if failure is not None:
            return SessionFailed(f"session {session_id} failed: {failure}")
        reason = self._released.get(session_id)
        if reason == "closed":
            return SessionNotFound(f"session {session_id} was closed")
        if reason is not None:
            return SessionNotFound(f"session {session_id} expired ({reason.replace('_', ' ')})")
        return SessionNotFound(f"unknown session {session_id}")

    def pop(self, session_id: str, reason: str) -> Lease | None:
        lease = self._leases.pop(session_id, None)
        if lease is not None:
            self.remember(session_id, reason)
        return lease

    def remember(self, session_id: str, reason: str) -> None:
        self._released[session_id] = reason
        if len(self._released) > self._remember:
            self._released.popitem(last=False)

    def drop(self, session_id: str) -> Lease | None:
        """Forget a session another server now owns, without remembering it as released here
        (a later request looks it up again and learns the owner)."""
        lease = self._leases.pop(session_id, None)
        self._absent.pop(session_id, None)
        return lease

    def fail(self, session_id: str, why: str) -> None:
        """Remember that the session failed and why: every later request on it answers 410 with
        that reason (the oldest failures are forgotten past `remember`)."""
        self._leases.pop(session_id, None)
        self.remember(session_id, "failed")
        self._failed[session_id] = why
        if len(self._failed) > self._remember:
            self._failed.popitem(last=False)

    def known_absent(self, session_id: str) -> bool:
        """The store had no open session under this id when last asked."""
        return session_id in self._absent

    def remember_absent(self, session_ids: Iterable[str]) -> None:
        """Remember ids the store does not hold (the oldest are forgotten past `remember`)."""
        absent = self._absent
        for session_id in session_ids:
            absent[session_id] = None
            absent.move_to_end(session_id)
        while len(absent) > self._remember:
            absent.popitem(last=False)

    def expired(self, now: float) -> list[tuple[Lease, str]]:
        """Leases past their idle TTL or max age (a lease busy in a step is never idle)."""
        out = []
        for lease in self._leases.values():
            if self.max_age_s and now - lease.created_at > self.max_age_s:
                out.append((lease, "expired_age"))
            elif self.idle_ttl_s and now - lease.last_used > self.idle_ttl_s and not lease.lock.locked():
                out.append((lease, "expired_idle"))
        return out
