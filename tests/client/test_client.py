"""EnvClient / AsyncEnvClient against real `coevo serve` subprocesses, plus the retry rules."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from coevo.client import (
    AsyncEnvClient,
    EnvClient,
    EpisodeOver,
    ServerBusy,
    ServerUnreachable,
    SessionNotFound,
)
from coevo.client import calls
from coevo.client.launcher import LaunchError, ServerSpec, docker_available, free_port, launch_local

ROOT = Path(__file__).resolve().parents[2]
GUESS = "tests.fixture_env:GuessEnv"


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Two replicas of the fixture env, each with its own store."""
    db = tmp_path_factory.mktemp("db")
    specs = [
        ServerSpec(GUESS, extra_args=["--db-url", f"sqlite:///{db}/a.db"]),
        ServerSpec(GUESS, extra_args=["--db-url", f"sqlite:///{db}/b.db", "--max-sessions", "64"]),
    ]
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(ROOT)
        a = launch_local(specs[:1])
        b = launch_local(specs[1:])
        with a as ua, b as ub:
            yield {"a": ua[GUESS], "b": ub[GUESS]}


def play_with_expert(session) -> list[str]:  # type: ignore[no-untyped-def]
    observations = []
    while True:
        result = session.step(session.expert_action())
        observations.append(result.observation)
        if result.done or result.truncated:
            assert result.reward == 1.0
            return observations


def test_sync_episode_and_context_manager_release(servers: dict[str, str]) -> None:
    with EnvClient(servers["a"]) as client:
        info = client.info()
        assert info.env == "guess" and info.max_steps == 12 and info.splits["train"] == 200
        assert client.tasks(split="test", offset=3, limit=2).tasks[0].task_id == "test-3"
        with client.create(seed=11) as session:
            first, task_id = session.observation, session.info["task_id"]
            assert task_id.startswith("train-")
            observations = play_with_expert(session)
            assert observations[-1] == "correct"
            with pytest.raises(EpisodeOver):
                session.step("guess 1")
            sid = session.session_id
        with pytest.raises(SessionNotFound):
            client._send(servers["a"], calls.state(sid))
        with client.create(seed=11) as again:  # same body, same episode
            assert again.observation == first and again.info["task_id"] == task_id


def test_fork_and_reset_through_the_client(servers: dict[str, str]) -> None:
    with EnvClient(servers["a"]) as client, client.create(task_id="train-7") as session:
        session.step("guess 50")
        with session.fork() as twin:
            assert twin.session_id != session.session_id
            assert twin.step("guess 25").observation == session.step("guess 25").observation
        session.reset(task_id="test-1")
        assert session.info["task_id"] == "test-1" and session.state().steps == 0


def test_replicas_spread_sessions_and_batch_step_keeps_order(servers: dict[str, str]) -> None:
    with EnvClient([servers["a"], servers["b"]]) as client:
        sessions = [client.create(task_id=f"train-{i}") for i in range(6)]
        assert {s.url for s in sessions} == {servers["a"], servers["b"]}
        items = [(s.session_id, f"guess {10 * (i + 1)}") for i, s in enumerate(sessions)]
        items.insert(3, ("no-such-session", "guess 1"))
        results = client.batch_step(items)
        assert [r.session_id for r in results] == [sid for sid, _ in items]
        assert not results[3].ok and results[3].status == 404 and results[3].error.code
        for s, r in zip(sessions, results[:3] + results[4:]):
            assert r.ok and r.result.observation in {"higher", "lower", "correct"}
            assert s.state().steps == 1
        for s in sessions:
            s.close()


async def test_async_client_runs_many_episodes_concurrently(servers: dict[str, str]) -> None:
    async with AsyncEnvClient([servers["a"], servers["b"]]) as client:

        async def episode(seed: int) -> tuple[int, float]:
            async with await client.create(seed=seed) as session:
                steps = 0
                while True:
                    result = await session.step(await session.expert_action())
                    steps += 1
                    if result.done or result.truncated:
                        return steps, result.reward

        outcomes = await asyncio.gather(*(episode(seed) for seed in range(24)))
        assert all(reward == 1.0 for _, reward in outcomes)
        assert all(1 <= steps <= 7 for steps, _ in outcomes)  # binary search over 1..100
        healths = [await client.health(url) for url in client.urls]
        assert sum(h.sessions for h in healths) <= 64  # every async session was released


def test_capacity_429_is_retried_until_a_slot_frees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    spec = ServerSpec(GUESS, extra_args=["--db-url", f"sqlite:///{tmp_path}/c.db", "--max-sessions", "1"])
    with launch_local([spec]) as urls:
        url = urls[GUESS]
        with EnvClient(url, retries=0) as impatient, impatient.create(seed=1):
            with pytest.raises(ServerBusy) as busy:
                impatient.create(seed=2)
            assert busy.value.status == 429
        with EnvClient(url, retries=20, backoff=0.05) as patient:
            holder = patient.create(seed=1)
            import threading

            threading.Timer(0.5, holder.close).start()
            with patient.create(seed=2) as second:  # waits for the slot the timer frees
                assert second.observation


def test_unreachable_server_is_retried_then_reported() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with EnvClient(url, retries=2, backoff=0.01) as client, pytest.raises(ServerUnreachable):
        client.health()


def test_a_step_whose_answer_was_lost_is_never_resent() -> None:
    """A step that may have acted must not be repeated: only unsent requests are retried."""
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        if request.url.path.endswith("/step"):
            raise httpx.ReadError("connection dropped after sending", request=request)
        raise httpx.ConnectError("refused", request=request)

    http = httpx.Client(transport=httpx.MockTransport(handler))
    client = EnvClient("http://replica", retries=3, backoff=0.001, http=http)
    with pytest.raises(ServerUnreachable):
        client._send("http://replica", calls.step("s1", "guess 1"))
    assert sent == ["/sessions/s1/step"]
    with pytest.raises(ServerUnreachable):
        client.health()
    assert sent.count("/health") == 4  # never sent, so retried: 1 + 3 retries


def test_launcher_reports_a_server_that_cannot_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    with pytest.raises(LaunchError, match="no_such_module"), launch_local(["no_such_module:Env"], startup_timeout=60):
        pass


def test_launch_picks_subprocesses_when_no_docker_engine_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    from coevo.client import launcher

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(launcher, "docker_available", lambda: False)
    with launcher.launch([GUESS], docker=None, db_url="sqlite://") as urls, EnvClient(urls[GUESS]) as client:
        assert client.health().env == "guess"
        assert urls.pids[GUESS] > 0


@pytest.mark.skipif(not docker_available(), reason="no Docker engine reachable (none runs on CI machines)")
def test_launch_docker_serves_from_the_image() -> None:  # pragma: no cover - needs an engine
    from coevo.client.launcher import launch_docker

    with launch_docker(["searchqa"], startup_timeout=600) as urls, EnvClient(urls["searchqa"]) as client:
        assert client.health().status == "ok"
