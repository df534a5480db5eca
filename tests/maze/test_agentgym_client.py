"""AgentGym's own `MazeEnvClient` against our AgentGym routes, as recorded once.

scripts/fidelity/record_agentgym_clients.py --only maze ran the client unchanged (/create,
/reset with a game, steps through its reply parsing) against a live server, with native calls on
the same session and AgentGym-shaped requests no client method makes ("raw": steps and reads
after the end, a refused game). Replaying the requests must give the recorded answers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.server.recorded_client import assert_replays_exactly, exchanges_by, recorded_server

SERVER = recorded_server(Path(__file__).parent / "data", "maze")


def _by(who: str) -> list[dict[str, Any]]:
    return exchanges_by(SERVER, who)


def test_recorded_client_session_replays_exactly(tmp_path: Path) -> None:
    assert_replays_exactly("maze", SERVER, tmp_path)


def test_answers_have_lmrl_gym_server_shapes() -> None:
    assert _by("raw")[0]["answer"] == "This is environment LMRL-Gym."
    client = _by("agentgym")
    assert all(ex["status"] == 200 for ex in client)
    reset = client[1]
    assert reset["body"] == {"game": 13, "id": "<session>"}
    assert reset["answer"]["observation"] == (
        "The goal is at position 8, 6. Your current position is at position 5, 3. There are walls to your left, below you."
    )
    steps = [ex for ex in client if ex["path"] == "/step"]
    assert steps[0]["answer"]["observation"] == reset["answer"]["observation"]  # into the wall: no move
    assert steps[1]["body"]["action"] == "I will just go up"  # no "Action:": its client sends the reply
    won = next(s for s in steps if s["answer"]["done"])
    assert (won["answer"]["observation"], won["answer"]["reward"]) == ("Success\n", 1.0)
    # Its client cuts five characters off a reply ending in "</s>" (four): "move right</s>" -> "move righ".
    assert steps[-1]["body"]["action"] == "move righ" and steps[-1]["answer"]["done"] is False


def test_a_finished_episode_and_a_missing_game_are_refused() -> None:
    refusal = {"error": "The task with environment <session> has finished."}
    after = [ex for ex in _by("raw") if ex["answer"] == refusal]
    assert {(ex["method"], ex["path"]) for ex in after} == {("POST", "/step"), ("GET", "/observation")}
    past = next(ex for ex in _by("raw") if ex["path"] == "/reset")
    assert past["body"]["game"] == 25 and past["status"] == 404  # its server: 200 {"error": ""}
