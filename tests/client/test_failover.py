"""Replica failover: real `coevo serve` replicas beside ports nobody listens on.

A counting transport (httpx's real HTTP transport, counting what it sends per replica) shows
which replica each request reached.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from coevo.client import AsyncEnvClient, EnvClient, ServerUnreachable
from coevo.client.launcher import ServerSpec, free_port, launch_local
from coevo.client.replicas import Replicas

ROOT = Path(__file__).resolve().parents[2]
GUESS = "tests.fixture_env:GuessEnv"


def replica_of(url: httpx.URL) -> str:
    return f"{url.scheme}://{url.host}:{url.port}"


class CountingTransport(httpx.HTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.sent: Counter[str] = Counter()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent[replica_of(request.url)] += 1
        return super().handle_request(request)


class AsyncCountingTransport(httpx.AsyncHTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.sent: Counter[str] = Counter()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.sent[replica_of(request.url)] += 1
        return await super().handle_async_request(request)


def dead_url() -> str:
    return f"http://127.0.0.1:{free_port()}"  # bound and released: connections are refused


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("db")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        with launch_local([ServerSpec(GUESS, extra_args=["--db-url", f"sqlite:///{db}/live.db"])]) as urls:
            yield urls[GUESS]


def test_create_uses_the_live_replica_and_remembers_the_dead_one(live: str) -> None:
    dead = dead_url()
    transport = CountingTransport()
    with EnvClient([dead, live], retries=0, http=httpx.Client(transport=transport)) as client:
        for seed in range(3):  # issue 20 item 8: this failed 3 of 3 times
            with client.create(seed=seed) as session:
                assert session.url == live
                assert session.step("guess 50").observation in {"higher", "lower", "correct"}
        assert transport.sent[dead] == 1  # tried once, then skipped while it is marked dead
        assert client._routing.dead(dead)


def test_a_dead_mark_expires_and_the_replica_is_tried_again(live: str) -> None:
    dead = dead_url()
    transport = CountingTransport()
    with EnvClient([dead, live], retries=0, dead_for_s=0.3, http=httpx.Client(transport=transport)) as client:
        client.create(seed=1).close()
        client.create(seed=2).close()
        assert transport.sent[dead] == 1
        time.sleep(0.35)
        client.create(seed=3).close()
        assert transport.sent[dead] == 2


def test_idempotent_reads_fail_over(live: str) -> None:
    dead = dead_url()
    with EnvClient([dead, live], retries=0) as client:
        assert client.info().env == "guess"
    with EnvClient([dead, live], retries=0) as client:
        assert client.tasks(split="test", limit=2).tasks[0].task_id == "test-0"
    with EnvClient([dead, live], retries=0) as client:
        assert client.health().status == "ok"
        with pytest.raises(ServerUnreachable):
            client.health(dead)  # asked for that replica: no other one answers for it


def test_every_replica_dead_is_reported_after_the_retries() -> None:
    dead_a, dead_b = dead_url(), dead_url()
    transport = CountingTransport()
    client = EnvClient([dead_a, dead_b], retries=2, backoff=0.01, http=httpx.Client(transport=transport))
    with client, pytest.raises(ServerUnreachable) as raised:
        client.create(seed=1)
    assert transport.sent == {dead_a: 3, dead_b: 3}  # every round tries both
    # One short error naming every URL tried, not a 71-line chain of httpx/httpcore errors.
    message = str(raised.value)
    assert dead_a in message and dead_b in message and "connection refused" in message
    assert "after 3 tries each" in message and "\n" not in message
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_every_replica_dead_is_one_short_error_in_a_users_script(tmp_path: Path) -> None:
    import subprocess
    import sys

    dead_a, dead_b = dead_url(), dead_url()
    script = f"from coevo.client import EnvClient\nEnvClient([{dead_a!r}, {dead_b!r}], backoff=0.01).info()\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert "During handling" not in done.stderr and "direct cause" not in done.stderr
    assert len(lines) < 20, done.stderr
    assert dead_a in lines[-1] and dead_b in lines[-1] and lines[-1].startswith("coevo.client.errors.ServerUnreachable")


async def test_every_replica_dead_async_names_every_url() -> None:
    dead_a, dead_b = dead_url(), dead_url()
    async with AsyncEnvClient([dead_a, dead_b], retries=1, backoff=0.01) as client:
        with pytest.raises(ServerUnreachable) as raised:
            await client.info()
    assert dead_a in str(raised.value) and dead_b in str(raised.value)


def test_a_full_replica_sends_the_create_to_the_next_one(
    live: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    spec = ServerSpec(GUESS, extra_args=["--db-url", f"sqlite:///{tmp_path}/full.db", "--max-sessions", "1"])
    with launch_local([spec]) as urls, EnvClient([urls[GUESS], live], retries=0) as client:
        full = urls[GUESS]
        holder = client.create(seed=1)
        assert holder.url == full
        with client.create(seed=2) as second, client.create(seed=3) as third:  # 429 from `full`
            assert second.url == live and third.url == live
        assert not client._routing.dead(full)  # busy is not dead
        holder.close()


def test_a_session_stays_on_its_replica_and_ends_with_it(
    live: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    spec = ServerSpec(GUESS, extra_args=["--db-url", f"sqlite:///{tmp_path}/gone.db"])
    transport = CountingTransport()
    with launch_local([spec]) as urls:
        doomed = urls[GUESS]
        client = EnvClient([doomed, live], retries=1, backoff=0.01, http=httpx.Client(transport=transport))
        sessions = [client.create(task_id=f"train-{i}") for i in range(4)]
        assert [s.url for s in sessions] == [doomed, live, doomed, live]
        before = Counter(transport.sent)
        for s in sessions:
            s.step("guess 50")
        assert Counter(transport.sent) - before == {doomed: 2, live: 2}  # each to its own replica
    with client:  # `doomed` is stopped: its sessions fail rather than move; the others carry on
        with pytest.raises(ServerUnreachable):
            sessions[0].step("guess 25")
        assert sessions[1].step("guess 25").observation in {"higher", "lower", "correct"}
        assert client._routing.dead(doomed)
        with client.create(seed=5) as fresh:
            assert fresh.url == live
        for s in sessions[1::2]:
            s.close()


async def test_async_create_fails_over_too(live: str) -> None:
    dead = dead_url()
    transport = AsyncCountingTransport()
    async with AsyncEnvClient([dead, live], retries=0, http=httpx.AsyncClient(transport=transport)) as client:
        sessions = await asyncio.gather(*(client.create(seed=s) for s in range(8)))
        assert {s.url for s in sessions} == {live}
        for s in sessions:
            await s.close()
        assert (await client.info()).env == "guess"
    assert transport.sent[dead] >= 1


def test_replica_order_round_robin_live_first() -> None:
    now = [0.0]
    replicas = Replicas(["http://a", "http://b", "http://c"], dead_for_s=10, clock=lambda: now[0])
    assert [replicas.candidates()[0] for _ in range(4)] == ["http://a", "http://b", "http://c", "http://a"]
    replicas.report_failure("http://b", httpx.ConnectError("refused"))
    now[0] = 1.0
    replicas.report_failure("http://a", httpx.ConnectError("refused"))
    assert replicas.candidates() == ["http://c", "http://b", "http://a"]  # b dead longest, tried first
    replicas.report_failure("http://c", httpx.ReadTimeout("slow"))  # slow is not dead
    assert not replicas.dead("http://c")
    now[0] = 10.5
    assert not replicas.dead("http://b") and replicas.dead("http://a")
    replicas.report_success("http://a")
    assert not replicas.dead("http://a")
    with pytest.raises(ValueError):
        Replicas(["http://a"], dead_for_s=-1)
