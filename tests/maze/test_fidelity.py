"""Maze against AgentGym's LMRL-Gym server code, as recorded once, over our AgentGym routes.

scripts/fidelity/record_lmrlgym.py drove `agentenv_lmrlgym.maze.environment.maze_server`
(AgentGym commit 3ef9235, LMRL-Gym 83abeed) on each of its 25 games with the shortest path,
random moves (a fifth malformed), ten malformed actions then the shortest path, and moves into
walls until the 50-move limit failed the episode, each until its server refused a step after the
end; games 25 and 26 it refuses at /reset. Replaying the same requests on our server must give
the same answers (the session id in its refusal written as ours; its refused games are our 404).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import serve

EPISODES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "original_episodes.json").read_text(encoding="utf-8")
)["episodes"]


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with serve("maze") as c:
        yield c


@pytest.mark.parametrize("episode", EPISODES, ids=[f"{e['game']}-{e['kind']}" for e in EPISODES])
def test_episode_agrees_with_agentgyms_server(client: TestClient, episode: dict[str, Any]) -> None:
    sid = client.post("/create").json()["id"]
    reset = client.post("/reset", json={"id": sid, "game": episode["game"]})
    if "error" in episode["reset"]:  # its server: 200 {"error"}; ours: 404 unknown_task
        assert reset.status_code == 404 and reset.json()["error"]["code"] == "unknown_task"
        return
    assert reset.json()["observation"] == episode["reset"]["observation"]
    for number, step in enumerate(episode["steps"]):
        answer = client.post("/step", json={"id": sid, "action": step["action"]}).json()
        expected = step["answer"]
        if "error" in expected:
            assert answer == {"error": f"The task with environment {sid} has finished."}, number
        else:
            got = (answer["observation"], answer["reward"], answer["done"])
            assert got == (expected["observation"], float(expected["reward"]), expected["done"]), number


def test_the_fixture_covers_success_failure_walls_and_refusals() -> None:
    answers = [s["answer"] for e in EPISODES for s in e["steps"]]
    assert any(a.get("observation") == "Success\n" and a["reward"] == 1.0 for a in answers)
    assert any(a.get("observation") == "Failure\n" and a["reward"] == -1.0 for a in answers)
    assert any(a.get("observation", "").endswith("There is a wall above you.") for a in answers)
    assert sum("error" in a for a in answers) == sum(1 for e in EPISODES if e["steps"])
    assert [e["reset"] for e in EPISODES if e["game"] >= 25] == [{"error": ""}, {"error": "The game 26 is not valid."}]
