"""AgentGym's own `TextCraftEnvClient` against our AgentGym routes, as recorded once.

scripts/fidelity/record_agentgym_clients.py --only textcraft ran the client unchanged against
a live server (create, reset, steps its action cleaning reads, the expert's commands to the
goal, a step after it, reset, close), with native calls (fork, expert, DELETE) on the same
session and AgentGym-shaped requests no client method makes ("raw"). Replaying the requests
must give the recorded answers; the other tests check those answers against the shapes
AgentGym's TextCraft server sends, so the fixture cannot record a wrong answer unnoticed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.server.recorded_client import assert_replays_exactly, exchanges_by, recorded_server

SERVER = recorded_server(Path(__file__).parent / "data", "textcraft")
EPISODES = json.loads((Path(__file__).parent / "data" / "original_episodes.json").read_text(encoding="utf-8"))


def _by(who: str) -> list[dict[str, Any]]:
    return exchanges_by(SERVER, who)


def test_recorded_client_session_replays_exactly(tmp_path: Path) -> None:
    assert_replays_exactly("textcraft", SERVER, tmp_path)  # /create: its id only (AgentGym's starts task `id`)


def test_answers_have_agentgym_textcraft_server_shapes() -> None:
    """The fields AgentGym's server sends are there with its values; the texts are the original's
    (the reset of index 2 is the recorded original's first observation)."""
    assert _by("raw")[0]["answer"] == "This is environment TextCraft."
    exchanges = _by("agentgym")
    assert all(ex["status"] == 200 for ex in exchanges)
    create = exchanges[0]
    assert create["path"] == "/create" and {"id", "observation", "done", "reward"} <= set(create["answer"])
    reset = exchanges[1]
    assert reset["body"] == {"data_idx": 2, "id": "<session>"}
    assert {"id", "observation", "done", "reward"} <= set(reset["answer"])
    assert (reset["answer"]["done"], reset["answer"]["reward"]) == (False, 0)
    original = next(e for e in EPISODES["episodes"] if e["index"] == 2)
    assert reset["answer"]["observation"] == original["observation"]
    steps = [ex for ex in exchanges if ex["path"] == "/step"]
    # The client cleaned "inventory." to "inventory", and a reply without "Action:" to "".
    assert [s["body"]["action"] for s in steps[:2]] == ["inventory", ""]
    assert steps[1]["answer"]["observation"] == "Could not execute "
    answers = [s["answer"] for s in steps]
    assert all({"observation", "reward", "done"} <= set(a) for a in answers)
    won = next(i for i, a in enumerate(answers) if a["done"])
    assert answers[won]["reward"] == 1.0 and answers[won]["observation"] == "Crafted 1 minecraft:beacon"
    # No end state: the step after the goal is taken.
    assert answers[won + 1] == {**answers[won + 1], "observation": "Inventory: [beacon] (1) ", "done": False}
    assert exchanges[-1]["path"] == "/close"


def test_an_index_past_agentgyms_tasks_is_refused() -> None:
    """AgentGym's server wraps `data_idx` around its 544 tasks; ours answers 404, and the
    session stays usable (the client's next reset works)."""
    past = next(ex for ex in _by("raw") if ex["path"] == "/reset")
    assert past["body"]["data_idx"] == 544 and past["status"] == 404
    assert past["answer"]["error"]["code"] == "unknown_task"
    following = [ex for ex in _by("agentgym") if ex["path"] == "/reset"][-1]
    assert following["body"]["data_idx"] == 543 and following["status"] == 200


def test_native_routes_share_the_session() -> None:
    native = _by("native")
    assert native and all(ex["status"] in (200, 201) for ex in native)
    fork_step = next(ex for ex in native if ex["path"] == "/sessions/<session1>/step")
    assert fork_step["answer"]["observation"] == "Got 1 nether star" and fork_step["answer"]["info"]["agentgym"]
