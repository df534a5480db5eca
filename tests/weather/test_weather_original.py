"""Weather's AgentGym sessions against AgentGym's own server code, as recorded once.

fixtures/record_original.py ran the sessions of fixtures/cases.json through AgentGym's
`WeatherEnvServer.step` and `.observation` (its action extraction, its env's `eval` parser,
the offline tools, the checks before each Open-Meteo request, AgentBoard's progress rate and
the reward > 0 -> 1.0 rule) and kept each answer in fixtures/original.json. Our env, in an
AgentGym session, must answer every step the same.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.weather.helpers import env_with, task_of

FIXTURES = Path(__file__).parent / "fixtures"
CASES = {c["name"]: c for c in json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))["cases"]}
ORIGINAL = json.loads((FIXTURES / "original.json").read_text(encoding="utf-8"))["sessions"]


@pytest.mark.parametrize("session", ORIGINAL, ids=[s["name"] for s in ORIGINAL])
def test_agentgym_session_answers_as_the_original(session: dict[str, Any]) -> None:
    case = CASES[session["name"]]
    env = env_with([task_of(case["task"])])
    env.agentgym = True
    first = env.reset(task_id=case["task"]["task_id"])
    assert first.observation == session["first"]
    for recorded in session["steps"]:
        result = env.step(recorded["action"], after_done=True)
        assert (result.observation, result.reward, result.done) == (
            recorded["observation"],
            recorded["reward"],
            recorded["done"],
        ), recorded["action"]
    adapter = env.agentgym_profile.adapt(env)
    assert adapter.observation() == session["observation_after"]


def test_the_fixture_covers_the_error_texts() -> None:
    texts = [s["observation"] for s in ORIGINAL for s in s["steps"]]
    for needle in (
        "Format error",
        "TypeError(cannot unpack",
        "Parameters in action input",
        "KeyError(",
        "Invalid action",
    ):
        assert any(needle in t for t in texts), needle
