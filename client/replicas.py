"""The replicas of one env as the clients see them: which to try, which are dead, who holds what.

New work (a create, or a read that no session owns) goes to the replicas round-robin, live ones
first; a replica that refused a connection is marked dead for `dead_for_s` and tried only after
every live one, so one dead address costs one failed connect, not one per request. Every call of
a session goes to the replica that created it. The URLs come from a fixed list or from a
headless Service's DNS name (client/discovery.py), re-resolved as it goes stale.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import httpx

from coevo.client.discovery import DnsService, StaticUrls, UrlSource, source_of

#: Transport errors that mean nobody listens there (as opposed to a slow or dropped answer).
UNREACHABLE = (httpx.ConnectError, httpx.ConnectTimeout)


class Replicas:
    def __init__(
        self,
        url_or_urls: str | Sequence[str] | DnsService | StaticUrls,
        *,
        dead_for_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if dead_for_s < 0:
            raise ValueError("dead_for_s must be >= 0")
        self.source: UrlSource = source_of(url_or_urls)
        self.dead_for_s = dead_for_s
        self._clock = clock
        self._turn = 0
        self._dead_since: dict[str, float] = {}
        self._owner: dict[str, str] = {}
        self._last: list[str] = []  # the list the latest candidates() saw

    # -------------------------------------------------------------- the replica list
    @property
    def urls(self) -> list[str]:
        return self.source.urls()

    def stale(self) -> bool:
        return self.source.stale()

    def refresh(self) -> None:
        self.source.refresh()

    # -------------------------------------------------------------- liveness
    def dead(self, url: str) -> bool:
        since = self._dead_since.get(url)
        if since is None:
            return False
        if self._clock() - since >= self.dead_for_s:
            del self._dead_since[url]
            return False
        return True

    def report_failure(self, url: str, exc: Exception) -> None:
        """Remember `url` as dead when the failure says nothing listens there."""
        if isinstance(exc, UNREACHABLE):
            self._dead_since[url] = self._clock()

    def report_success(self, url: str) -> None:
        self._dead_since.pop(url, None)

    def candidates(self) -> list[str]:
        """The order to try replicas for one new request: live ones round-robin, then dead ones,
        longest dead first (its mark is nearest to expiry)."""
        urls = self._last = self.urls
        start = self._turn % len(urls)
        self._turn += 1
        rotated = urls[start:] + urls[:start]
        live = [u for u in rotated if not self.dead(u)]
        dead = sorted((u for u in rotated if u not in live), key=lambda u: self._dead_since[u])
        return live + dead

    # -------------------------------------------------------------- sessions
    def remember(self, session_id: str, url: str) -> None:
        self._owner[session_id] = url

    def forget(self, session_id: str) -> None:
        self._owner.pop(session_id, None)

    def of(self, session_id: str) -> str:
        """The replica holding `session_id`; a session this client never created goes to the
        first replica, whose 404 then says it is unknown (the last list seen: no DNS lookup here,
        which may run on an event loop)."""
        return self._owner.get(session_id) or (self._last or self.urls)[0]

    def group(self, session_ids: Sequence[str]) -> dict[str, list[int]]:
        """Indexes of `session_ids` by the replica holding each, for one batch per replica."""
        by_url: dict[str, list[int]] = {}
        for i, session_id in enumerate(session_ids):
            by_url.setdefault(self.of(session_id), []).append(i)
        return by_url


__all__ = ["DnsService", "Replicas", "StaticUrls"]
