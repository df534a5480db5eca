"""Where an env's replicas are: a fixed list of URLs, or every address of a DNS name.

A Kubernetes headless Service (clusterIP: None) answers its DNS name with one A record per ready
pod, so `DnsService("coevo-myenv.coevo.svc.cluster.local", 8000)` (or the URL form
`dns+http://coevo-myenv.coevo.svc.cluster.local:8000`, accepted wherever a server URL is)
finds every replica and, re-resolved every `refresh_s`, the ones added or removed later. The
resolver is injectable so that tests need no DNS server.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Callable, Sequence
from typing import Protocol
from urllib.parse import urlsplit

#: host name -> its addresses (IPv4 or IPv6 literals).
Resolver = Callable[[str], Sequence[str]]

DNS_SCHEME_PREFIX = "dns+"


class NoReplicas(LookupError):
    """A DNS name has no address, and no earlier lookup found one."""


def resolve_addresses(host: str) -> list[str]:
    """Every address the system resolver gives `host` (all A and AAAA records), first seen first."""
    infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class UrlSource(Protocol):
    def urls(self) -> list[str]: ...
    def stale(self) -> bool: ...
    def refresh(self) -> None: ...


class StaticUrls:
    """A fixed list of replica URLs."""

    def __init__(self, urls: Sequence[str]) -> None:
        if not urls:
            raise ValueError("at least one server URL is needed")
        self._urls = [u.rstrip("/") for u in urls]

    def urls(self) -> list[str]:
        return list(self._urls)

    def stale(self) -> bool:
        return False

    def refresh(self) -> None:
        pass


class DnsService:
    """The replicas behind one DNS name: `scheme://ADDRESS:port` for each of its addresses."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        scheme: str = "http",
        resolver: Resolver = resolve_addresses,
        refresh_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not host:
            raise ValueError("a DNS name is needed")
        if scheme not in {"http", "https"}:
            raise ValueError(f"scheme must be http or https, not {scheme!r}")
        self.host, self.port, self.scheme = host, port, scheme
        self.refresh_s = refresh_s
        self._resolver, self._clock = resolver, clock
        self._urls: list[str] = []
        self._resolved_at: float | None = None

    @classmethod
    def from_url(cls, url: str, **options: object) -> DnsService:
        """`dns+http://name:port` (port 80/443 when left out)."""
        parts = urlsplit(url)
        scheme = parts.scheme.removeprefix(DNS_SCHEME_PREFIX)
        if not parts.scheme.startswith(DNS_SCHEME_PREFIX) or not parts.hostname:
            raise ValueError(f"not a dns+http(s)://name:port URL: {url!r}")
        port = parts.port or (443 if scheme == "https" else 80)
        return cls(parts.hostname, port, scheme=scheme, **options)  # type: ignore[arg-type]

    def _url(self, address: str) -> str:
        host = f"[{address}]" if ipaddress.ip_address(address).version == 6 else address
        return f"{self.scheme}://{host}:{self.port}"

    def stale(self) -> bool:
        return self._resolved_at is None or self._clock() - self._resolved_at >= self.refresh_s

    def refresh(self) -> None:
        """Look the name up again. A failed or empty answer keeps the replicas found before (a
        DNS hiccup must not strand a trainer); with none found yet it raises NoReplicas."""
        try:
            addresses = list(self._resolver(self.host))
        except OSError as exc:
            addresses, error = [], f"{exc}"
        else:
            error = "no address records"
        if addresses:
            self._urls = [self._url(a) for a in dict.fromkeys(addresses)]
        elif not self._urls:
            raise NoReplicas(f"{self.host}: {error}")  # stays stale: the next call looks again
        self._resolved_at = self._clock()

    def urls(self) -> list[str]:
        if self.stale():
            self.refresh()
        return list(self._urls)

    def __repr__(self) -> str:
        return f"DnsService({self.scheme}://{self.host}:{self.port})"


def source_of(url_or_urls: str | Sequence[str] | DnsService | StaticUrls) -> UrlSource:
    """A URL source from what a client was given: one URL, a list, a `dns+http://` URL or a
    DnsService."""
    if isinstance(url_or_urls, (DnsService, StaticUrls)):
        return url_or_urls
    if isinstance(url_or_urls, str):
        if url_or_urls.startswith(DNS_SCHEME_PREFIX):
            return DnsService.from_url(url_or_urls)
        return StaticUrls([url_or_urls])
    urls = list(url_or_urls)
    if len(urls) == 1:  # `--url dns+http://...` arrives as a list of one
        return source_of(urls[0])
    if any(u.startswith(DNS_SCHEME_PREFIX) for u in urls):
        raise ValueError("give a dns+http:// URL on its own, not inside a list of URLs")
    return StaticUrls(urls)
