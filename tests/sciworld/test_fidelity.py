"""coevo's SciWorld against AgentGym's server code, as recorded once.

scripts/fidelity/record_sciworld.py ran AgentGym's `agentenv-sciworld` server object (with
scienceworld 1.2.3) on gold-path, random and invalid action sequences and kept its answers
(tests/sciworld/data/agentgym_original.json). Replayed here through our env (the JVM shared by
every test of the module) and through our AgentGym routes, each answer must be the original's,
step for step. The sessions are few and short: they bound the JVM's time in CI (~60 steps).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from coevo.envs import registry
from coevo.envs.sciworld import tasks
from coevo.envs.sciworld.env import SciWorldEnv
from tests.server.conftest import serve

FIXTURE = json.loads((Path(__file__).parent / "data" / "agentgym_original.json").read_text(encoding="utf-8"))
SESSIONS = FIXTURE["sessions"]


def test_the_index_to_game_mapping_is_agentgyms() -> None:
    runs: list[list[Any]] = []
    for game in tasks.load().games:
        if runs and runs[-1][0] == game.task and runs[-1][1] == game.variation:
            runs[-1][1] += 1
        else:
            runs.append([game.task, 1])
    assert runs == FIXTURE["games"]
    assert sum(n for _, n in runs) == 4639


@pytest.fixture(scope="module")
def env() -> Iterator[SciWorldEnv]:
    made = registry.make("sciworld")
    assert isinstance(made, SciWorldEnv)
    made.agentgym = True
    yield made


@pytest.mark.parametrize("case", SESSIONS, ids=[f"{s['kind']}-{s['index']}" for s in SESSIONS])
def test_steps_agree_with_the_original(env: SciWorldEnv, case: dict[str, Any]) -> None:
    adapter = env.agentgym_profile.adapt(env)
    reset = env.reset(task_id=adapter.task(case["index"]))
    assert {**adapter.reset_fields(), "observation": reset.observation} == case["reset"]
    for step in case["steps"]:
        answer = step["answer"]
        if "error" in answer:  # the original refuses a finished episode
            assert env.done and answer["error"].startswith("The task with environment")
            break
        result = env.step(step["action"])
        ours = {"observation": result.observation, **adapter.step_fields(), "done": result.done}
        assert ours == answer, step["action"]
        assert result.reward == pytest.approx(answer["reward"] / 100)


def test_an_expert_solves_the_recorded_games(env: SciWorldEnv) -> None:
    """The expert is the recorded gold path: it reaches score 100 where the original did."""
    case = next(s for s in SESSIONS if s["kind"] == "expert")
    env.agentgym = False
    try:
        first = env.reset(task_id=tasks.load().games[case["index"]].task_id)
        assert first.observation.startswith(case["reset"]["task_description"] + "\n")
        total = 0.0
        while (action := env.expert_action()) is not None:
            result = env.step(action)
            total += result.reward
        assert env.done and total == pytest.approx(1.0)
    finally:
        env.agentgym = True


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with serve("sciworld") as c:
        yield c


def test_agentgym_routes_answer_as_the_original(client: TestClient) -> None:
    assert client.get("/").json() == "This is environment ScienceWorld."
    case = next(s for s in SESSIONS if s["kind"] == "expert")
    created = client.post("/create").json()
    assert set(created) == {"id"}
    sid = created["id"]
    reset = client.post("/reset", json={"id": sid, "data_idx": case["index"]}).json()
    assert {k: reset[k] for k in case["reset"]} == case["reset"]
    for step in case["steps"]:
        answer = client.post("/step", json={"id": sid, "action": step["action"]})
        assert answer.status_code == 200
        body = answer.json()
        if "error" in step["answer"]:
            assert body == {"error": f"The task with environment {sid} has finished."}
            break
        assert {k: body[k] for k in step["answer"]} == step["answer"]
    assert client.get(f"/observation?id={sid}").json() == {"error": f"The task with environment {sid} has finished."}


def test_bad_indices_and_task_ids_are_refused(client: TestClient) -> None:
    sid = client.post("/create").json()["id"]
    # The original answers {"error": "list index out of range"} with HTTP 200; we keep the status.
    assert (
        client.post("/reset", json={"id": sid, "data_idx": FIXTURE["reset_out_of_range"]["index"]}).status_code == 404
    )
    assert client.post("/reset", json={"id": sid, "data_idx": -1}).status_code in (404, 422)
    assert client.post("/sessions", json={"task_id": "boil-var999"}).status_code == 404
