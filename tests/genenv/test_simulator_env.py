"""The simulator env: generation from pi_env, the validity gate, replay from the store,
scoring, and the admin commands — in process and over HTTP behind the admin token."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from coevo.config import ServerConfig
from coevo.envs.base import UnknownCommand, UnknownTask
from coevo.envs.simulator.env import GenerationFailed, SimulatorEnv
from coevo.simulator.policies.base import Proposal
from coevo.simulator.policies.parametric import ParametricPolicy
from coevo.simulator.task_record import SimTask
from coevo.server import create_app


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'sim.db'}"


@pytest.fixture
def env(db_url: str) -> SimulatorEnv:
    return SimulatorEnv(db_url=db_url, base_size=8)


def test_reset_draws_a_new_task_and_step_scores_it(env: SimulatorEnv) -> None:
    assert env.splits() == {"base": 8, "generated": 0, "heldout": 1000}  # function calling holds combinations out
    first = env.reset(seed=5)
    assert first.info["split"] == "generated" and first.info["task_id"].startswith("sim-")
    assert first.observation == first.info["task"] and "Request:" in first.observation
    assert env.splits()["generated"] == 1
    gold = env.expert_action()
    step = env.step(gold)
    assert step.reward == 1.0 and step.done and step.observation == "Correct."
    assert env.expert_action() is None
    env.reset(task_id=first.info["task_id"])
    assert env.step("no_such_tool(x=1)").reward == 0.0


def test_same_seed_same_task_and_replay_from_another_process_state(env: SimulatorEnv, db_url: str) -> None:
    a = env.reset(seed=42)
    b = env.reset(seed=42)
    assert a.info == b.info and a.observation == b.observation
    assert env.splits()["generated"] == 1  # content-addressed: recorded once
    # a fresh shared state (another server process) finds the task in the store
    other = SimulatorEnv(db_url=db_url, base_size=8)
    replay = other.reset(task_id=a.info["task_id"], seed=3)
    assert replay.observation == a.observation and replay.info["split"] == "generated"
    assert other.task_ids("generated") == [a.info["task_id"]]
    snapshot = {"task_id": a.info["task_id"], "seed": 0, "actions": ["wrong(x=1)"]}
    restored = other.restore(snapshot)
    assert restored.reward == 0.0 and restored.done
    with pytest.raises(UnknownTask):
        other.reset(task_id="sim-000000000000000000000000")


def test_base_split_serves_fixed_tasks(env: SimulatorEnv) -> None:
    ids = env.task_ids("base")
    assert len(ids) == 8 and env.split_of(ids[3]) == "base"
    r = env.reset(split="base", seed=1)
    assert r.info["task_id"] in ids
    assert env.describe_task(ids[0])["family"] == "function_calling"


def test_hot_loading_new_weights_changes_what_is_generated(env: SimulatorEnv, tmp_path: Path) -> None:
    policy = ParametricPolicy(["function_calling"])
    policy.logits["function_calling"]["n_tools"] = np.array([-20.0, -20.0, -20.0, 20.0])
    policy.save(tmp_path / "p.json")
    before = env.shared.policy.version
    answer = SimulatorEnv.admin(env.shared, "load_policy", {"path": str(tmp_path / "p.json")})
    assert answer["version"] == policy.version != before
    result = SimulatorEnv.admin(env.shared, "generate", {"count": 12, "seed": 3})
    assert result["valid"] == 12 == len(result["tasks"]) and result["policy_version"] == policy.version
    assert all(t["context"]["knobs"]["n_tools"] == 8 for t in result["tasks"])
    info = SimulatorEnv.admin(env.shared, "policy", {})
    assert info["marginals"]["function_calling"]["n_tools"]["8"] > 0.99
    with pytest.raises(Exception, match="cannot load"):
        SimulatorEnv.admin(env.shared, "load_policy", {"path": str(tmp_path / "missing.json")})
    with pytest.raises(UnknownCommand):
        SimulatorEnv.admin(env.shared, "reboot", {})


class _Flaky:
    """A policy whose every other proposal is broken: the gate must drop and count them."""

    kind = "flaky"
    version = "flaky-1"

    def __init__(self) -> None:
        self.inner = ParametricPolicy(["function_calling"])

    def propose(self, count: int, seed: int, family: str | None = None) -> list[Proposal]:
        out = []
        for i, p in enumerate(self.inner.propose(count, seed, family)):
            if (seed + i) % 2:
                bad = SimTask("function_calling", p.task.prompt, [{"name": "x y", "arguments": {}}], "tool_call")
                out.append(Proposal(p.context, "broken", bad))
            else:
                out.append(p)
        return out

    def load(self, path: str) -> None: ...
    def describe(self) -> dict:
        return {}


def test_validity_gate_drops_and_counts_invalid_generations(env: SimulatorEnv) -> None:
    env.shared.policy = _Flaky()
    result = SimulatorEnv.admin(env.shared, "generate", {"count": 10, "seed": 0})
    assert result["valid"] == 10 and result["attempts"] > 10
    stats = SimulatorEnv.admin(env.shared, "stats", {})
    assert stats["invalid"] == stats["attempts"] - stats["valid"] > 0
    assert 0 < stats["validity_rate"] < 1
    one_round = SimulatorEnv.admin(env.shared, "generate", {"count": 10, "seed": 100, "fill": False})
    assert one_round["attempts"] == 10 and one_round["valid"] == 5
    assert one_round["errors"] == {"gold call name 'x y' is not an identifier": 5}
    # invalid generations are recorded too, with their reason, and never served
    from sqlalchemy import func, select
    from sqlalchemy.orm import Session

    from coevo.simulator.records import SimGenerationRecord

    with Session(env.shared.engine) as db:
        bad = db.scalar(
            select(func.count()).select_from(SimGenerationRecord).where(SimGenerationRecord.valid.is_(False))
        )
        reason = db.scalar(select(SimGenerationRecord.error).where(SimGenerationRecord.valid.is_(False)).limit(1))
    after = SimulatorEnv.admin(env.shared, "stats", {})
    assert bad == after["invalid"] == stats["invalid"] + 5 and "identifier" in reason


def test_generation_that_never_passes_the_gate_fails_clearly(env: SimulatorEnv) -> None:
    class Broken(_Flaky):
        def propose(self, count, seed, family=None):
            return [Proposal({}, "junk", None, "no '### Answer' block") for _ in range(count)]

    env.shared.policy = Broken()
    with pytest.raises(GenerationFailed):
        env.reset(seed=1)


@pytest.fixture
def http(db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    # The tests save policies under tmp_path: the server may read admin paths only there.
    app = create_app(
        "simulator",
        env_options={"db_url": db_url, "base_size": 4},
        config=ServerConfig(admin_token="s3cret", record=False, admin_dir=str(tmp_path)),
    )
    with TestClient(app) as client:
        yield client


def test_over_http_with_the_admin_token(http: TestClient, tmp_path: Path) -> None:
    created = http.post("/sessions", json={"seed": 9})
    assert created.status_code == 201
    sid = created.json()["session_id"]
    expert = http.get(f"/sessions/{sid}/expert").json()["action"]
    step = http.post(f"/sessions/{sid}/step", json={"action": expert}).json()
    assert step["reward"] == 1.0 and step["done"]
    assert http.post("/admin/stats").status_code == 403
    assert http.post("/admin/stats", headers={"Authorization": "Bearer nope"}).status_code == 403
    auth = {"Authorization": "Bearer s3cret"}
    policy = ParametricPolicy(["function_calling"])
    policy.logits["function_calling"]["phrasing"] = np.array([30.0, -30.0])
    policy.save(tmp_path / "explicit.json")
    loaded = http.post("/admin/load_policy", json={"path": str(tmp_path / "explicit.json")}, headers=auth)
    assert loaded.status_code == 200 and loaded.json()["result"]["version"] == policy.version
    made = http.post("/admin/generate", json={"count": 4, "seed": 1}, headers=auth).json()["result"]
    assert all(t["context"]["knobs"]["phrasing"] == "explicit" for t in made["tasks"])
    for task in made["tasks"]:
        r = http.post("/sessions", json={"task_id": task["task_id"]}).json()
        assert r["observation"].splitlines()[-1].startswith("Request: Use ")
    stats = http.post("/admin/stats", headers=auth).json()["result"]
    assert stats["policy_loads"] == 1 and stats["validity_rate"] == 1.0


def test_the_trainers_remote_simulator_speaks_protocol_and_admin(http: TestClient, tmp_path: Path) -> None:
    from coevo.genenv.simulator import RemoteSimulator

    sim = RemoteSimulator("http://testserver", "s3cret", http=http)
    batch = sim.generate(5, seed=2)
    assert batch.valid == 5 == len(batch.tasks) and batch.validity_rate == 1.0
    assert all(t.prompt.startswith("Tools:") and t.context["family"] == "function_calling" for t in batch.tasks)
    prompt, answer = sim.demo("function_calling")
    assert "Request:" in prompt and "(" in answer
    rewards = sim.score([(batch.tasks[0].task_id, "nonsense"), (batch.tasks[1].task_id, "wrong(x=1)")])
    assert rewards == [0.0, 0.0]
    gold = sim.expert(batch.tasks[2].task_id)
    assert gold and sim.score([(batch.tasks[2].task_id, gold)]) == [1.0]
    policy = ParametricPolicy(["function_calling"])
    policy.logits["function_calling"]["n_args"] = np.array([-9.0, -9.0, 9.0])
    policy.save(tmp_path / "three_args.json")
    assert sim.load_policy(str(tmp_path / "three_args.json")) == policy.version
    assert sim.policy_info()["marginals"]["function_calling"]["n_args"]["3"] > 0.99
    assert all(t.context["knobs"]["n_args"] == 3 for t in sim.generate(4, seed=3).tasks)
    with pytest.raises(RuntimeError, match="403"):
        RemoteSimulator("http://testserver", "wrong", http=http).generate(1, seed=0)


def test_base_tasks_for_replay_are_one_seeded_sample_in_process_and_over_http(http: TestClient, db_url: str) -> None:
    from coevo.genenv.simulator import LocalSimulator, RemoteSimulator

    local = LocalSimulator({"db_url": db_url, "base_size": 4})
    remote = RemoteSimulator("http://testserver", "s3cret", http=http)
    try:
        drawn = local.base_tasks(2, seed=5)
        assert drawn == remote.base_tasks(2, seed=5)
        assert len(drawn) == 2 and {t.task_id for t in drawn} <= set(local.shared.base_index)
        for task in drawn:
            base = local.shared.base_index[task.task_id]
            assert task.prompt == base.prompt and task.context == {
                "source": "base",
                "family": base.family,
                "knobs": base.meta["knobs"],
            }
        assert local.base_tasks(9, seed=5) and len(local.base_tasks(9, seed=5)) == 4  # all of them
        assert [t.task_id for t in local.base_tasks(4, seed=6)] != [t.task_id for t in local.base_tasks(4, seed=5)]
    finally:
        local.close()


def _refused(r: Any, status: int = 422) -> str:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    return str(r.json()["error"]["message"])


def test_client_integers_are_range_checked_before_sql_and_the_rng(http: TestClient) -> None:
    auth = {"Authorization": "Bearer s3cret"}
    # 2**63 overflowed SQLite's OFFSET into a 500 (and reset the keep-alive connection).
    _refused(http.get("/tasks", params={"split": "generated", "offset": 9223372036854775808}))
    assert http.get("/tasks", params={"split": "generated", "offset": 2**63 - 1}).json()["tasks"] == []
    for payload in (
        {"count": 1, "seed": 2**70},
        {"count": 1, "seed": True},
        {"count": 1, "seed": "7"},
        {"count": 0},
        {"count": 5000},
        {"count": "2"},
        {"count": 1, "fill": "yes"},
        {"count": 1, "colour": "red"},
    ):
        _refused(http.post("/admin/generate", json=payload, headers=auth))
    _refused(http.post("/sessions", json={"seed": 2**70}))
    assert http.post("/admin/generate", json={"count": 1, "seed": 2**63 - 1}, headers=auth).status_code == 200
    assert http.post("/admin/stats", headers=auth).json()["result"]["attempts"] >= 1


def test_load_policy_reads_only_files_under_the_admin_directory(http: TestClient, tmp_path: Path) -> None:
    auth = {"Authorization": "Bearer s3cret"}
    policy = ParametricPolicy(["function_calling"])
    policy.save(tmp_path / "ok.json")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.json"
    policy.save(outside)
    (tmp_path / "out-link.json").symlink_to(outside)
    (tmp_path / "dev-link").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text("{}")
    (tmp_path / "model" / "weights").symlink_to("/etc/hostname")
    try:
        absent = _refused(http.post("/admin/load_policy", json={"path": "/nonexistent/p.json"}, headers=auth))
        for path in (
            "/dev/zero",
            "/etc/shadow",
            "/etc/hostname",
            str(outside),
            str(tmp_path / "out-link.json"),
            str(tmp_path / "dev-link"),
            str(tmp_path / "fifo"),
            "../" + outside.name,
            str(tmp_path / "model"),
        ):
            message = _refused(http.post("/admin/load_policy", json={"path": path}, headers=auth))
            # The same answer as for an absent path: nothing is revealed about what exists.
            assert message.replace(repr(path), "X") == absent.replace(repr("/nonexistent/p.json"), "X")
        _refused(http.post("/admin/load_policy", json={"path": True}, headers=auth))
        loaded = http.post("/admin/load_policy", json={"path": "ok.json"}, headers=auth)
        assert loaded.status_code == 200 and loaded.json()["result"]["version"] == policy.version
    finally:
        outside.unlink()


def test_load_policy_caps_what_it_reads(db_url: str, tmp_path: Path) -> None:
    ParametricPolicy(["function_calling"]).save(tmp_path / "p.json")
    size = (tmp_path / "p.json").stat().st_size
    app = create_app(
        "simulator",
        env_options={"db_url": db_url, "base_size": 4},
        config=ServerConfig(admin_token="s3cret", record=False, admin_dir=str(tmp_path), admin_max_read_bytes=size - 1),
    )
    with TestClient(app) as client:
        r = client.post("/admin/load_policy", json={"path": "p.json"}, headers={"Authorization": "Bearer s3cret"})
        assert "larger than" in _refused(r)
        assert (
            client.post("/admin/stats", headers={"Authorization": "Bearer s3cret"}).json()["result"]["policy_loads"]
            == 0
        )
