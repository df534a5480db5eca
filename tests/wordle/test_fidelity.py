"""Wordle against AgentGym's LMRL-Gym server code, as recorded once, over our AgentGym routes.

scripts/fidelity/record_lmrlgym.py drove `agentenv_lmrlgym.wordle.environment.wordle_server`
(AgentGym commit 3ef9235, LMRL-Gym 83abeed) on 30 seeds (every test seed, train ones up to the
last), each with our solver's guesses, random guesses (spaced, plain, malformed) and malformed
ones, until its server refused a step after the end; after every step it read /filtered_vocab.
Replaying the same requests on our server must give the same answers: observation, reward, done,
the consistent words, and the server's 200 `{"error"}` after the end (its session id replaced).
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
    with serve("wordle") as c:
        yield c


def _ours(answer: Any, original_id: int, sid: str) -> Any:
    """The original's answer with its integer session id written as ours."""
    if isinstance(answer, dict) and "error" in answer:
        return {"error": answer["error"].replace(f"environment {original_id} ", f"environment {sid} ")}
    return answer


@pytest.mark.parametrize("episode", EPISODES, ids=[f"{e['seed']}-{e['kind']}" for e in EPISODES])
def test_episode_agrees_with_agentgyms_server(client: TestClient, episode: dict[str, Any]) -> None:
    sid = client.post("/create").json()["id"]
    reset = client.post("/reset", json={"id": sid, "seed": episode["seed"]}).json()
    assert reset["observation"] == episode["reset"]["observation"]
    original_id = episode["reset"]["id"]
    for number, step in enumerate(episode["steps"]):
        answer = client.post("/step", json={"id": sid, "action": step["action"]}).json()
        expected = _ours(step["answer"], original_id, sid)
        if "error" in expected:
            assert answer == expected, number
        else:
            got = (answer["observation"], answer["reward"], answer["done"])
            assert got == (expected["observation"], float(expected["reward"]), expected["done"]), number
        vocab = client.get(f"/filtered_vocab?id={sid}").json()
        assert vocab == _ours(step["filtered_vocab"], original_id, sid), number


def test_the_fixture_covers_wins_losses_invalid_words_and_refusals() -> None:
    answers = [s["answer"] for e in EPISODES for s in e["steps"]]
    assert any(a.get("reward") == 1 for a in answers)
    assert any(a.get("done") and a.get("reward") == 0 for a in answers)  # six guesses, no win
    assert any(a.get("observation") == "invalid word" for a in answers)
    assert sum("error" in a for a in answers) == len(EPISODES)
