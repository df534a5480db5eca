"""AgentGym's own tool-env clients against our AgentGym routes, as recorded once.

scripts/fidelity/record_agentgym_tool_clients.py ran AgentGym's `WeatherEnvClient` (and, as
they come, the other tool clients) unchanged against a live server and kept every request with
our status and answer. Replaying the requests must give the same answers; the answers have the
shapes AgentGym's tool servers give (`GET /` "ok", /create the bare session id, /reset and
/observation a string, /step observation, reward, done).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.server.conftest import serve
from tests.server.test_agentgym_clients import _replay

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "agentgym_tool_clients.json").read_text(encoding="utf-8"))
ENVS = sorted(FIXTURE["servers"])
#: Servers whose reward is a raw score in [0, 1] (Sheet's cell-match share), not 0.0 or 1.0.
RAW_SCORE = {"sheet"}


@pytest.mark.parametrize("env", ENVS)
def test_recorded_client_sessions_replay_exactly(env: str, tmp_path: Path) -> None:
    recorded = FIXTURE["servers"][env]
    with serve(env, db_url=f"sqlite:///{tmp_path / 'store.db'}", env_options=recorded["env_options"]) as c:
        replayed = _replay(c, recorded["exchanges"])
    for ex, status, answer in replayed:
        assert (status, answer) == (ex["status"], ex["answer"]), (ex["method"], ex["path"], ex["body"])


@pytest.mark.parametrize("env", ENVS)
def test_answers_have_the_tool_servers_shapes(env: str) -> None:
    for ex in FIXTURE["servers"][env]["exchanges"]:
        if ex["by"] == "native":
            continue
        answer = ex["answer"]
        if ex["path"] == "/":
            assert answer == "ok"
        elif ex["path"] in ("/create", "/reset", "/observation"):
            assert isinstance(answer, str)
        elif ex["path"] == "/step":
            assert {"observation", "reward", "done"} <= set(answer)
            if env in RAW_SCORE:
                assert 0.0 <= answer["reward"] <= 1.0
            else:
                assert answer["reward"] in (0.0, 1.0)
            assert answer["observation"].endswith("Give me one action.") or answer["observation"].startswith(
                "Format error"
            )


@pytest.mark.parametrize("env", ENVS)
def test_a_session_after_finish_goes_on_and_observation_repeats_the_first(env: str) -> None:
    steps = [ex for ex in FIXTURE["servers"][env]["exchanges"] if ex["path"] == "/step" and ex["by"] == "agentgym"]
    ended = next(i for i, ex in enumerate(steps) if ex["answer"]["done"])
    assert steps[ended + 1]["status"] == 200 and steps[ended + 1]["answer"]["reward"] == 1.0
    observations = [ex["answer"] for ex in FIXTURE["servers"][env]["exchanges"] if ex["path"] == "/observation"]
    assert all(text.startswith("Now new trial starts.") for text in observations)
