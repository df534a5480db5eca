"""The protocol contract, over HTTP, for every registered env (the fixture env included).

Each env gets one server (module-scoped: shared data loads once) recording to SQLite, and a few
cheap episodes: catalogue, create by task and by seed, expert play to the end, determinism,
fork, steps after the end, reset, snapshot/restore, and what the store recorded.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from coevo.envs import registry
from coevo.store.tables import Episode, StepRecord
from tests.server.conftest import serve

ENV_NAMES = registry.names()


@pytest.fixture(scope="module", params=ENV_NAMES)
def client(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp(f"contract-{request.param}") / "store.db"
    with serve(request.param, db_url=f"sqlite:///{db}") as c:
        yield c


def _info(client: TestClient) -> dict[str, Any]:
    r = client.get("/info")
    assert r.status_code == 200
    return r.json()


def _first_task(client: TestClient) -> str:
    info = _info(client)
    r = client.get("/tasks", params={"split": info["default_split"], "limit": 1})
    assert r.status_code == 200
    return r.json()["tasks"][0]["task_id"]


def _create(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/sessions", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def _step(client: TestClient, sid: str, action: str) -> dict[str, Any]:
    r = client.post(f"/sessions/{sid}/step", json={"action": action})
    assert r.status_code == 200, r.text
    return r.json()


def _expert(client: TestClient, sid: str) -> str | None:
    r = client.get(f"/sessions/{sid}/expert")
    assert r.status_code == 200, r.text
    return r.json()["action"]


def _play_expert(client: TestClient, sid: str, max_steps: int) -> list[dict[str, Any]]:
    results = []
    for _ in range(max_steps):
        action = _expert(client, sid)
        assert action is not None, "the expert gave up before the episode ended"
        results.append(_step(client, sid, action))
        if results[-1]["done"] or results[-1]["truncated"]:
            break
    return results


def _strip_session(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "session_id"}


def test_health_info_tasks(client: TestClient) -> None:
    health = client.get("/health").json()
    info = _info(client)
    assert health["status"] == "ok" and health["env"] == info["env"]
    assert health["capacity"] >= 1
    assert info["max_steps"] >= 1 and info["action_format"]
    assert info["default_split"] in info["splits"]
    for split, count in info["splits"].items():
        page = client.get("/tasks", params={"split": split, "limit": 3}).json()
        assert page["total"] == count
        assert len(page["tasks"]) == min(3, count)
        if count >= 2:
            shifted = client.get("/tasks", params={"split": split, "offset": 1, "limit": 1}).json()
            assert shifted["tasks"][0]["task_id"] == page["tasks"][1]["task_id"]
        assert all(t["split"] == split for t in page["tasks"])
    assert client.get("/tasks", params={"split": "no-such-split"}).status_code == 404


def test_create_by_task_and_seed(client: TestClient) -> None:
    task = _first_task(client)
    by_task = _create(client, task_id=task)
    assert by_task["info"]["task_id"] == task
    assert isinstance(by_task["observation"], str) and by_task["observation"]
    a, b = _create(client, seed=1234), _create(client, seed=1234)
    assert a["session_id"] != b["session_id"]
    assert a["observation"] == b["observation"] and a["info"] == b["info"]
    assert client.post("/sessions", json={"task_id": "no-such-task-xyz"}).status_code == 404
    for s in (by_task, a, b):
        assert client.delete(f"/sessions/{s['session_id']}").status_code == 200


def test_expert_plays_to_the_end_then_409(client: TestClient) -> None:
    info = _info(client)
    created = _create(client, seed=7)
    sid = created["session_id"]
    results = _play_expert(client, sid, info["max_steps"])
    last = results[-1]
    assert last["done"] or last["truncated"]
    assert len(results) <= info["max_steps"]
    assert sum(r["reward"] for r in results) > 0, "the expert should earn reward"
    state = client.get(f"/sessions/{sid}").json()
    assert state["done"] and state["steps"] == len(results)
    assert state["total_reward"] == pytest.approx(sum(r["reward"] for r in results))
    assert state["last_observation"] == last["observation"]
    after = client.post(f"/sessions/{sid}/step", json={"action": "anything"})
    assert after.status_code == 409 and after.json()["error"]["code"] == "episode_finished"

    # The store holds the episode and every step, in order.
    service = client.app.state.service
    service.writer.flush()
    with Session(service.writer.engine) as db:
        episode = db.scalars(select(Episode).where(Episode.session_id == sid)).one()
        steps = db.scalars(
            select(StepRecord).where(StepRecord.episode_id == episode.id).order_by(StepRecord.index)
        ).all()
    assert episode.task_id == created["info"]["task_id"] and episode.seed == 7
    assert episode.steps == len(results) and episode.status in ("success", "failure", "truncated")
    assert episode.total_reward == pytest.approx(state["total_reward"])
    assert [s.index for s in steps] == list(range(1, len(results) + 1))
    assert [s.observation for s in steps] == [r["observation"] for r in results]
    client.delete(f"/sessions/{sid}")


def test_same_seed_same_episode(client: TestClient) -> None:
    info = _info(client)
    a, b = _create(client, seed=99), _create(client, seed=99)
    for _ in range(min(4, info["max_steps"])):
        action = _expert(client, a["session_id"])
        if action is None:
            break
        ra, rb = _step(client, a["session_id"], action), _step(client, b["session_id"], action)
        assert _strip_session(ra) == _strip_session(rb)
        if ra["done"] or ra["truncated"]:
            break
    for s in (a, b):
        client.delete(f"/sessions/{s['session_id']}")


def _fork_and_compare(client: TestClient, pid: str, last_observation: str) -> str:
    r = client.post(f"/sessions/{pid}/fork")
    assert r.status_code == 201, r.text
    child = r.json()
    cid = child["session_id"]
    assert cid != pid and child["observation"] == last_observation
    ps, cs = client.get(f"/sessions/{pid}").json(), client.get(f"/sessions/{cid}").json()
    for key in ("task_id", "split", "seed", "steps", "done", "total_reward", "last_observation"):
        assert ps[key] == cs[key], key
    action = _expert(client, pid)
    assert action is not None and _expert(client, cid) == action
    assert _strip_session(_step(client, pid, action)) == _strip_session(_step(client, cid, action))
    client.delete(f"/sessions/{cid}")
    return action


def test_fork_continues_identically(client: TestClient) -> None:
    """Fork at the start and again mid-episode: both copies answer the next step alike."""
    parent = _create(client, seed=3)
    pid = parent["session_id"]
    _fork_and_compare(client, pid, parent["observation"])
    state = client.get(f"/sessions/{pid}").json()
    if not state["done"]:
        _fork_and_compare(client, pid, state["last_observation"])
    client.delete(f"/sessions/{pid}")


def test_reset_starts_the_named_task(client: TestClient) -> None:
    task = _first_task(client)
    fresh = _create(client, task_id=task)
    other = _create(client, seed=11)
    sid = other["session_id"]
    action = _expert(client, sid)
    if action is not None:
        _step(client, sid, action)
    r = client.post(f"/sessions/{sid}/reset", json={"task_id": task})
    assert r.status_code == 200, r.text
    assert r.json()["observation"] == fresh["observation"]
    assert r.json()["info"] == fresh["info"]
    state = client.get(f"/sessions/{sid}").json()
    assert state["steps"] == 0 and not state["done"] and state["task_id"] == task
    for s in (fresh["session_id"], sid):
        client.delete(f"/sessions/{s}")


def test_snapshot_restore_equality(client: TestClient) -> None:
    """In process: a restored env is indistinguishable from the original."""
    name = _info(client)["env"]
    runtime = client.app.state.service.runtime
    env = runtime.new_env()
    env.reset(seed=5)
    for _ in range(2):
        action = env.expert_action()
        if action is None or env.done:
            break
        env.step(action)
    snap = env.snapshot()
    twin = runtime.new_env()
    twin.restore(snap)
    assert twin.snapshot() == snap, name
    assert (twin.task_id, twin.seed, twin.steps, twin.done) == (env.task_id, env.seed, env.steps, env.done)
    assert twin.expert_action() == env.expert_action()
    if not env.done:
        action = env.expert_action() or "look"
        a, b = env.step(action), twin.step(action)
        assert (a.observation, a.reward, a.done, a.truncated, a.info) == (
            b.observation,
            b.reward,
            b.done,
            b.truncated,
            b.info,
        )
