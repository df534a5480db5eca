"""Every way an episode can end, injected for real against a live server with a store: each is
reported with its end status on both sides (the client's trajectory, the server's episode row
and /metrics), and the ones without the env's verdict are never learned from or averaged in
as a 0 (issue 45)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from coevo.client.heldout import HeldoutEvaluator, HeldoutSplit, UnscoredEpisode, score
from coevo.client.http import AsyncEnvClient
from coevo.client.policies.base import Policy, PolicyRequest, Sampling
from coevo.client.rollout import RolloutEngine
from coevo.client.summary import summarize
from coevo.client.trajectory import EpisodeSpec, Trajectory, scored_only
from coevo.client.evaluation import TaskRef
from coevo.store.db import make_engine
from coevo.store.tables import Episode
from tests.server.live import live_server

FAULTY = "tests.faulty_env:FaultyGuessEnv"
#: The guess env's train-0 target is 1.
SOLVE, MISS = "Thought: low.\nAction: guess 1", "Thought: high.\nAction: guess 100"

Reply = str | None | Callable[[PolicyRequest], Any]


class Scripted(Policy):
    """Each episode's script by task id: a reply, None (abstain), or a coroutine function of the
    request (to raise, stall or break the connection at that turn)."""

    name = "scripted"
    batched = False

    def __init__(self, scripts: dict[str, Sequence[Reply]]) -> None:
        super().__init__()
        self.scripts = scripts
        self.task_of: dict[str, str] = {}

    async def act(self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None) -> list[str | None]:
        out = []
        for request in requests:
            assert request.session is not None
            # The first turn's info names the task (the reset's); later ones are the steps'.
            task = self.task_of.setdefault(request.session.session_id, str(request.info.get("task_id")))
            script = self.scripts[task]
            turn = sum(1 for m in request.messages if m["role"] == "assistant") - 1
            reply = script[min(turn, len(script) - 1)]
            out.append(await reply(request) if callable(reply) else reply)
        return out


async def _raise(_request: PolicyRequest) -> str:
    raise RuntimeError("CUDA out of memory")


async def _stall(_request: PolicyRequest) -> str:
    await asyncio.sleep(30)
    return SOLVE


async def _lose_the_lease(request: PolicyRequest) -> str:
    assert request.session is not None
    async with httpx.AsyncClient() as http:  # someone else releases the session meanwhile
        assert (await http.delete(f"{request.session.url}/sessions/{request.session.session_id}")).status_code == 200
    return MISS


async def _lose_the_connection(request: PolicyRequest) -> str:
    assert request.session is not None
    request.session.url = "http://127.0.0.1:9"  # nothing listens there: the next step cannot connect
    return MISS


#: task -> (script, the client's end status, its end reason, the server's recorded status)
CASES: dict[str, tuple[Sequence[Reply], str, str, str]] = {
    "train-0": ([MISS, SOLVE], "success", "env", "success"),
    "train-1": (["Thought: no.\nAction: give up"], "failure", "env", "failure"),
    "train-2": ([MISS], "truncated", "env", "truncated"),
    "train-3": ([MISS, "Thought: hm.\nAction: crash"], "env_error", "server", "env_error"),
    "train-4": ([MISS, _raise], "policy_error", "raised", "policy_error"),
    "train-5": ([_stall], "policy_error", "timeout", "policy_error"),
    "train-6": ([None], "policy_error", "abstained", "policy_error"),
    "train-7": ([MISS, _lose_the_lease], "abandoned", "server", "abandoned"),
    "train-8": ([MISS, _lose_the_connection], "transport_error", "server", "running"),
}


@pytest.fixture
def faulty(tmp_path: Path) -> Iterator[tuple[str, str]]:
    db_url = f"sqlite:///{tmp_path / 'store.db'}"
    with live_server(FAULTY, db_url=db_url) as url:
        yield url, db_url


def _play(url: str) -> list[Trajectory]:
    scripts = {task: case[0] for task, case in CASES.items()}
    # Targets: train-0 is 1; the others never meet 1 or 100 before their script's point.
    specs = [EpisodeSpec("faulty_guess", task_id=task) for task in CASES]

    async def go() -> list[Trajectory]:
        async with AsyncEnvClient(url) as client:
            engine = RolloutEngine(
                Scripted(scripts), {"faulty_guess": client}, policy_timeout_s=1.0, batch_steps=False, concurrency=9
            )
            return await engine.run(specs)

    return asyncio.run(go())


def test_each_failure_is_reported_with_its_status_and_never_scored(faulty: tuple[str, str]) -> None:
    url, db_url = faulty
    trajectories = {t.task_id: t for t in _play(url)}
    for task, (_, status, reason, _) in CASES.items():
        t = trajectories[task]
        assert (t.status, t.end_reason) == (status, reason), (task, t.error)
        assert t.scored == (status in ("success", "failure", "truncated"))
        assert not t.success or status == "success"
    assert "internal_error" in (trajectories["train-3"].error or "")  # the env's message stays on the server
    assert "CUDA out of memory" in (trajectories["train-4"].error or "")
    assert "ServerUnreachable" in (trajectories["train-8"].error or "")

    # Evaluation: the five unscored episodes are counted, not averaged in as failures.
    summary = summarize(trajectories.values())
    assert (summary["n"], summary["scored"], summary["unscored"]) == (9, 3, 6)
    assert summary["success_rate"] == pytest.approx(1 / 3)
    assert summary["status"] == {
        "success": 1, "failure": 1, "truncated": 1, "abandoned": 1, "env_error": 1, "policy_error": 3,
        "transport_error": 1, "unknown": 0,
    }  # fmt: skip
    # Training data (AgentEvol's D_m) keeps only the episodes the env judged.
    assert sorted(t.task_id for t in scored_only(trajectories.values())) == ["train-0", "train-1", "train-2"]

    # The server recorded what it saw: the env's verdicts, its own crash with the exception,
    # the client's reports of its policy's failures, the lease released under the episode.
    engine = make_engine(db_url)
    with Session(engine) as db:
        episodes = {e.task_id: e for e in db.scalars(select(Episode))}
    engine.dispose()
    for task, (*_, recorded) in CASES.items():
        assert episodes[task].status == recorded, (task, episodes[task].status, episodes[task].error)
    assert "RuntimeError: the simulator lost its state" in (episodes["train-3"].error or "")
    assert "CUDA out of memory" in (episodes["train-4"].error or "")
    assert "no reply within" in (episodes["train-5"].error or "")
    # The lost connection left its lease open: it ends when the lease expires (abandoned).
    assert episodes["train-8"].closed_at is None

    metrics = httpx.get(f"{url}/metrics").text
    for status, count in [("success", 1), ("failure", 1), ("truncated", 1), ("env_error", 1), ("policy_error", 3),
                          ("abandoned", 1), ("transport_error", 0)]:  # fmt: skip
        assert f'coevo_episodes_ended_total{{env="faulty_guess",status="{status}"}} {count}.0' in metrics, status


def test_an_env_crash_ends_an_unjudged_episode_env_error(faulty: tuple[str, str]) -> None:
    """The crash answers 500 without leaking the env's message; the session may go on (the env
    is as before the step): judged later, the verdict stands; left unjudged, it is env_error."""
    url, db_url = faulty
    with httpx.Client(base_url=url) as http:
        crashed, recovered = (http.post("/sessions", json={"task_id": "train-3"}).json()["session_id"] for _ in "ab")
        for sid in (crashed, recovered):
            r = http.post(f"/sessions/{sid}/step", json={"action": "crash"})
            assert r.status_code == 500 and r.json()["error"] == {"code": "internal_error",
                                                                  "message": "internal server error"}  # fmt: skip
        assert http.post(f"/sessions/{recovered}/step", json={"action": "guess 12"}).json()["done"]  # target 12
        for sid in (crashed, recovered):
            assert http.delete(f"/sessions/{sid}").status_code == 200
    engine = make_engine(db_url)
    with Session(engine) as db:
        rows = {e.session_id: e for e in db.scalars(select(Episode))}
    engine.dispose()
    assert rows[crashed].status == "env_error"
    assert rows[crashed].error == "RuntimeError: the simulator lost its state"
    assert (rows[recovered].status, rows[recovered].error) == ("success", None)


def test_a_client_may_report_only_what_it_alone_sees(faulty: tuple[str, str]) -> None:
    url, db_url = faulty
    with httpx.Client(base_url=url) as http:
        sid = http.post("/sessions", json={"task_id": "train-1"}).json()["session_id"]
        for status in ("success", "failure", "env_error", "abandoned", "bogus"):
            r = http.delete(f"/sessions/{sid}", params={"status": status})
            assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", status
        long = http.delete(f"/sessions/{sid}", params={"status": "transport_error", "error": "x" * 2001})
        assert long.status_code == 422
        ok = http.delete(f"/sessions/{sid}", params={"status": "transport_error", "error": "read timed out"})
        assert ok.status_code == 200
        # A finished episode keeps the env's verdict, whatever the client reports.
        done = http.post("/sessions", json={"task_id": "train-1"}).json()["session_id"]
        assert http.post(f"/sessions/{done}/step", json={"action": "give up"}).json()["done"] is True
        assert http.delete(f"/sessions/{done}", params={"status": "policy_error"}).status_code == 200
    engine = make_engine(db_url)
    with Session(engine) as db:
        rows = {e.session_id: e for e in db.scalars(select(Episode))}
    engine.dispose()
    assert (rows[sid].status, rows[sid].error) == ("transport_error", "read timed out")
    assert (rows[done].status, rows[done].error) == ("failure", None)


def test_heldout_scores_never_count_an_unscored_episode() -> None:
    task = TaskRef("guess", "test-0", "test", {})
    broken = Trajectory("guess", "test-0", "test", 0, "p", [], status="env_error", error="boom")
    with pytest.raises(UnscoredEpisode, match="env_error"):
        score(HeldoutSplit("guess", "test", 1), [task], [broken])
    judged = Trajectory("guess", "test-0", "test", 0, "p", [], status="failure")
    assert score(HeldoutSplit("guess", "test", 1), [task], [judged]).outcomes == [0.0]


class FlakyOnce(Policy):
    """Raises on the first reply of each task's first episode, then plays the winning guess."""

    name = "flaky"
    batched = False

    def __init__(self, always: bool = False) -> None:
        super().__init__()
        self.always, self.seen = always, set[str]()
        self.task_of: dict[str, str] = {}

    async def act(self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None) -> list[str | None]:
        out: list[str | None] = []
        for request in requests:
            assert request.session is not None
            task = self.task_of.setdefault(request.session.session_id, str(request.info.get("task_id")))
            if self.always or task not in self.seen:
                self.seen.add(task)
                raise RuntimeError("the inference server dropped the request")
            out.append(f"Action: {await request.session.expert_action()}")
        return out


def test_heldout_replays_unscored_episodes_and_counts_them(faulty: tuple[str, str]) -> None:
    url, _ = faulty

    async def go(policy: Policy) -> list[Any]:
        async with AsyncEnvClient(url) as client:
            evaluator = HeldoutEvaluator({"faulty_guess": [client]}, [HeldoutSplit("faulty_guess", "test", 3)])
            return await evaluator.evaluate(policy)

    (row,) = asyncio.run(go(FlakyOnce()))
    assert (row.n, row.success_rate, row.outcomes) == (3, 1.0, [1.0, 1.0, 1.0])
    assert row.replayed == {"policy_error": 3} and row.metrics()["replayed"] == {"policy_error": 3}
    with pytest.raises(UnscoredEpisode, match="policy_error"):
        asyncio.run(go(FlakyOnce(always=True)))
