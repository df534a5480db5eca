"""BabyAI through the server: AgentGym's `BabyAIEnvClient`'s recorded session (replayed by
tests/server/test_agentgym_clients.py) checked against its server's shapes, and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from coevo.envs.babyai.env import BabyAIEnv
from tests.server.conftest import serve

FIXTURE = json.loads(
    (Path(__file__).parents[1] / "server" / "fixtures" / "agentgym_clients.json").read_text(encoding="utf-8")
)
RECORDED = FIXTURE["servers"]["babyai"]
FINISHED = {"error": "The task with environment <session> has finished."}


def _by(by: str) -> list[dict[str, Any]]:
    return [ex for ex in RECORDED["exchanges"] if ex["by"] == by]


def test_babyai_client_answers_have_babyai_server_shapes() -> None:
    """`{"id"}` from /create; /reset's `{observation, reward, score, deleted, done}` and /step's
    `{observation, reward, score, done}` (the client reads each); the goal line only on reset."""
    raw = _by("raw")
    assert raw[0]["answer"] == "This is environment BabyAI."
    exchanges = _by("agentgym")
    assert all(ex["status"] == 200 for ex in exchanges)
    assert exchanges[0]["path"] == "/create" and exchanges[0]["answer"] == {"id": "<session>"}
    resets = [ex for ex in exchanges if ex["path"] == "/reset"]
    for ex in resets:
        answer = ex["answer"]
        assert {"observation", "reward", "score", "deleted", "done"} <= set(answer)
        assert answer["observation"].startswith("Your goal: ") and "\nAvailable actions: [" in answer["observation"]
        assert (answer["reward"], answer["score"], answer["deleted"], answer["done"]) == (0.0, 0.0, False, False)
    steps = [ex["answer"] for ex in exchanges if ex["path"] == "/step"]
    for answer in steps:
        assert {"observation", "reward", "score", "done"} <= set(answer)
        assert not answer["observation"].startswith("Your goal: ")
    assert steps[0]["observation"].startswith("The action is not recognized. Please check valid actions.")
    assert steps[1]["observation"].startswith("You can take the following actions: turn left, turn right")
    solved = [a for a in steps if a["done"]]
    assert len(solved) == 1 and solved[0]["reward"] > 0.5 and solved[0]["score"] == solved[0]["reward"]
    assert "\n The task is completed." in solved[0]["observation"]
    assert steps[-1]["observation"].startswith("You cannot drop the object, as you are not carrying anything.")


def test_finished_episode_and_unknown_items_are_refused_as_recorded() -> None:
    raw = _by("raw")
    observation_mid_episode = raw[1]["answer"]
    assert observation_mid_episode.startswith("Your goal: go to the red ball\nYou can take the following actions:")
    after_step, after_observation = raw[2]["answer"], raw[3]["answer"]
    assert after_step == FINISHED and after_observation == FINISHED
    past = raw[4]
    assert past["body"]["data_idx"] == 900 and past["status"] == 404


def test_native_routes_refuse_bad_input_and_take_bad_actions_as_observations() -> None:
    with serve("babyai") as c:
        assert c.post("/sessions", json={"task_id": "babyai_900"}).status_code == 404
        assert c.post("/sessions", json={"task_id": "minigrid_1"}).status_code == 404
        agentgym = c.post("/create").json()["id"]
        assert c.post("/reset", json={"id": agentgym, "data_idx": -1}).status_code == 422
        assert c.post("/reset", json={"id": agentgym, "data_idx": 900}).status_code == 404
        assert c.post("/reset", json={"id": agentgym, "data_idx": 899}).status_code == 200
        created = c.post("/sessions", json={"task_id": "babyai_12"})
        assert created.status_code == 201
        sid = created.json()["session_id"]
        step = c.post(f"/sessions/{sid}/step", json={"action": "go through red open door 3"})
        assert step.status_code == 200
        body = step.json()
        assert body["observation"].startswith("The action is not recognized.") and body["done"] is False
        actions = body["info"]["available_actions"]
        assert actions[:2] == ["turn left", "turn right"] and actions[-1] == "check available actions"


def test_agentgym_session_survives_sigkill(tmp_path: Path) -> None:
    """SIGKILL mid-episode: after the restart the AgentGym session replays its level and actions
    (the expert's plan included) and answers the next step as if nothing happened."""
    import signal

    import httpx

    from tests.server.test_recovery import _free_port, _wait_recorded, coevo_serve

    sqlite_url = f"sqlite:///{tmp_path / 'store.db'}"
    port = _free_port()
    log = tmp_path / "serve.log"
    with coevo_serve(sqlite_url, port, log, "babyai") as (proc, base), httpx.Client(base_url=base, timeout=30) as c:
        sid = c.post("/create").json()["id"]
        c.post("/reset", json={"id": sid, "data_idx": 7})
        for action in ("turn left", "fly", "move forward"):
            assert c.post("/step", json={"id": sid, "action": action}).status_code == 200
        expert = c.get(f"/sessions/{sid}/expert").json()["action"]
        _wait_recorded(sqlite_url, expected_steps=3)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    reference = BabyAIEnv()
    reference.agentgym = True
    reference.reset(task_id="babyai_7")
    for action in ("turn left", "fly", "move forward"):
        reference.step(action)
    assert reference.expert_action() == expert
    expected = reference.step(expert)
    with coevo_serve(sqlite_url, port, log, "babyai") as (_, base), httpx.Client(base_url=base, timeout=30) as c:
        assert c.get(f"/sessions/{sid}/expert").json()["action"] == expert
        answer = c.post("/step", json={"id": sid, "action": expert}).json()
        assert answer["observation"] == expected.observation and answer["score"] == reference.score
