"""Replicas from a DNS name (a headless Service's A records), with a stub resolver: no DNS server.

The live test serves two replicas on one port at 127.0.0.2 and 127.0.0.3 (all of 127/8 is
loopback on Linux), as two pods behind a headless Service answer on the same port.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from coevo.client import AsyncEnvClient, EnvClient
from coevo.client.discovery import DnsService, NoReplicas, StaticUrls, resolve_addresses, source_of
from coevo.client.launcher import free_port, wait_healthy

ROOT = Path(__file__).resolve().parents[2]
GUESS = "tests.fixture_env:GuessEnv"
SERVICE = "coevo-guess.coevo.svc.cluster.local"


class StubResolver:
    """Answers from a table the test changes, and counts the lookups."""

    def __init__(self, records: dict[str, list[str]]) -> None:
        self.records = records
        self.lookups = 0

    def __call__(self, host: str) -> Sequence[str]:
        self.lookups += 1
        if host not in self.records:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return self.records[host]


def test_every_address_becomes_a_replica_url() -> None:
    stub = StubResolver({SERVICE: ["10.0.0.7", "10.0.0.8", "10.0.0.7", "fd00::5"]})
    service = DnsService(SERVICE, 8000, resolver=stub)
    assert service.urls() == ["http://10.0.0.7:8000", "http://10.0.0.8:8000", "http://[fd00::5]:8000"]


def test_the_name_is_resolved_again_once_stale_and_a_failure_keeps_the_last_answer() -> None:
    now = [0.0]
    stub = StubResolver({SERVICE: ["10.0.0.7"]})
    service = DnsService(SERVICE, 8000, resolver=stub, refresh_s=30, clock=lambda: now[0])
    assert service.urls() == ["http://10.0.0.7:8000"]
    stub.records[SERVICE] = ["10.0.0.7", "10.0.0.9"]  # scaled up
    now[0] = 29.0
    assert service.urls() == ["http://10.0.0.7:8000"] and stub.lookups == 1
    now[0] = 30.0
    assert service.urls() == ["http://10.0.0.7:8000", "http://10.0.0.9:8000"] and stub.lookups == 2
    del stub.records[SERVICE]  # DNS outage: keep what was known
    now[0] = 61.0
    assert service.urls() == ["http://10.0.0.7:8000", "http://10.0.0.9:8000"] and stub.lookups == 3
    stub.records[SERVICE] = []  # no ready pod: the same
    now[0] = 92.0
    assert len(service.urls()) == 2


def test_a_name_never_resolved_raises_and_is_looked_up_again_next_time() -> None:
    stub = StubResolver({})
    service = DnsService(SERVICE, 8000, resolver=stub)
    with pytest.raises(NoReplicas, match=SERVICE):
        service.urls()
    stub.records[SERVICE] = ["10.0.0.7"]
    assert service.urls() == ["http://10.0.0.7:8000"] and stub.lookups == 2


def test_url_forms() -> None:
    service = DnsService.from_url(f"dns+http://{SERVICE}:8000", resolver=StubResolver({SERVICE: ["10.1.2.3"]}))
    assert (service.host, service.port, service.scheme) == (SERVICE, 8000, "http")
    assert service.urls() == ["http://10.1.2.3:8000"]
    assert DnsService.from_url("dns+https://envs.example").port == 443
    assert isinstance(source_of("http://127.0.0.1:8000"), StaticUrls)
    assert isinstance(source_of("dns+http://coevo-bfcl:8000"), DnsService)
    assert isinstance(source_of(["dns+http://coevo-bfcl:8000"]), DnsService)  # coevo eval --url ...
    for bad in ("http://x:1", "dns+ftp://x:1", "dns+http://:8000"):
        with pytest.raises(ValueError):
            DnsService.from_url(bad)
    with pytest.raises(ValueError, match="on its own"):
        source_of(["http://a:1", "dns+http://b:1"])
    with pytest.raises(ValueError):
        source_of([])


def test_the_system_resolver_returns_every_address_of_a_hosts_file_name() -> None:
    assert "127.0.0.1" in resolve_addresses("localhost")  # /etc/hosts, no DNS server involved


def _serve(host: str, port: int, db: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "coevo.cli",
            "serve",
            GUESS,
            "--host",
            host,
            "--port",
            str(port),
            "--db-url",
            f"sqlite:///{db}",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )


@pytest.fixture(scope="module")
def pods(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, list[str]]]:
    """Two replicas on 127.0.0.2 and 127.0.0.3, one port: the pods behind a headless Service."""
    db = tmp_path_factory.mktemp("db")
    addresses = ["127.0.0.2", "127.0.0.3"]
    port = free_port("127.0.0.2")
    procs = [_serve(a, port, db / f"{a}.db") for a in addresses]
    try:
        for address, proc in zip(addresses, procs):
            wait_healthy(f"http://{address}:{port}", 120, alive=lambda p=proc: p.poll() is None)
        yield port, addresses
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=15)


def test_sessions_spread_over_the_discovered_replicas_and_stay_on_theirs(pods: tuple[int, list[str]]) -> None:
    port, addresses = pods
    stub = StubResolver({SERVICE: list(addresses)})
    a, b = (f"http://{address}:{port}" for address in addresses)
    with EnvClient(DnsService(SERVICE, port, resolver=stub, refresh_s=0)) as client:
        sessions = [client.create(task_id=f"train-{i}") for i in range(4)]
        assert [s.url for s in sessions] == [a, b, a, b]
        for s in sessions:
            s.step("guess 50")
        assert [client.health(url).sessions for url in (a, b)] == [2, 2]
        stub.records[SERVICE] = [addresses[1]]  # the first pod left the Service (not ready)
        fresh = [client.create(task_id=f"train-{i}") for i in range(4, 7)]
        assert {s.url for s in fresh} == {b}
        for s in sessions:  # older sessions stay on the replica that created them
            assert s.step("guess 25").observation in {"higher", "lower", "correct"}
            assert s.state().steps == 2
        assert client.health(a).sessions == 2
        for s in sessions + fresh:
            s.close()
        assert [client.health(url).sessions for url in (a, b)] == [0, 0]


async def test_the_async_client_discovers_off_the_event_loop(pods: tuple[int, list[str]]) -> None:
    port, addresses = pods
    stub = StubResolver({SERVICE: list(addresses)})
    service = DnsService.from_url(f"dns+http://{SERVICE}:{port}", resolver=stub)
    async with AsyncEnvClient(service) as client:
        sessions = [await client.create(seed=s) for s in range(6)]
        assert sorted({s.url for s in sessions}) == [f"http://{a}:{port}" for a in addresses]
        for s in sessions:
            await s.step("guess 50")
            await s.close()
    assert stub.lookups == 1  # re-resolved only when stale (30 s by default)


def test_a_name_that_never_resolves_is_reported_after_the_retries_by_both_clients() -> None:
    """Each round looks the name up again (it stays stale) and the client gives up with the
    lookup's error, not a connection error: the sync client and the async one alike."""
    import asyncio

    from coevo.client.errors import ServerUnreachable

    sync_stub, async_stub = StubResolver({}), StubResolver({})
    with EnvClient(DnsService(SERVICE, 8000, resolver=sync_stub), retries=2, backoff=0) as client:
        with pytest.raises(ServerUnreachable, match=SERVICE):
            client.create(seed=1)

    async def create() -> None:
        async with AsyncEnvClient(DnsService(SERVICE, 8000, resolver=async_stub), retries=2, backoff=0) as client:
            await client.create(seed=1)

    with pytest.raises(ServerUnreachable, match=SERVICE):
        asyncio.run(create())
    assert sync_stub.lookups == async_stub.lookups == 3  # one per round
