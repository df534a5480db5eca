"""AgentGym's own `WordleEnvClient` against our AgentGym routes, as recorded once.

scripts/fidelity/record_agentgym_clients.py --only wordle ran the client unchanged (its
/create, /filtered_vocab, /reset with a seed, steps through its reply parsing) against a live
server, with native calls on the same session and AgentGym-shaped requests no client method
makes ("raw": /filtered_vocab after each step, steps and reads after the end). Replaying the
requests must give the recorded answers; the other tests check them against LMRL-Gym's server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.server.recorded_client import assert_replays_exactly, exchanges_by, recorded_server

SERVER = recorded_server(Path(__file__).parent / "data", "wordle")


def _by(who: str) -> list[dict[str, Any]]:
    return exchanges_by(SERVER, who)


def test_recorded_client_session_replays_exactly(tmp_path: Path) -> None:
    assert_replays_exactly("wordle", SERVER, tmp_path)


def test_answers_have_lmrl_gym_server_shapes() -> None:
    assert _by("raw")[0]["answer"] == "This is environment LMRL-Gym."
    client = _by("agentgym")
    assert all(ex["status"] == 200 for ex in client)
    vocab = client[1]
    assert (
        vocab["path"] == "/filtered_vocab" and len(vocab["answer"]) == 40 and vocab["answer"][:2] == ["panic", "solar"]
    )
    reset = client[2]
    assert reset["body"] == {"seed": 3, "id": "<session>"} and reset["answer"]["observation"] == "Let's start Wordle!"
    assert reset["answer"]["task_id"] == "wordle-3"  # the seed names the task
    steps = [ex for ex in client if ex["path"] == "/step"]
    assert steps[0]["answer"]["observation"] == "invalid word" and steps[0]["answer"]["reward"] == 0.0
    won = next(s for s in steps if s["answer"]["done"])
    assert won["answer"]["observation"] == "g g g g g\n" and won["answer"]["reward"] == 1.0
    # Its client cuts five characters off a reply ending in "</s>" (four): "shire</s>" -> "shir".
    assert steps[-1]["body"]["action"] == "shir" and steps[-1]["answer"]["observation"] == "invalid word"


def test_a_finished_episode_is_refused_as_its_server_does() -> None:
    refusal = {"error": "The task with environment <session> has finished."}
    after = [ex for ex in _by("raw") if ex["answer"] == refusal]
    assert {(ex["method"], ex["path"]) for ex in after} == {("POST", "/step"), ("GET", "/filtered_vocab")}
    assert all(ex["status"] == 200 for ex in after)
    past = next(ex for ex in _by("raw") if ex["path"] == "/reset")
    assert past["body"]["seed"] == 980 and past["status"] == 404  # its server takes any seed
