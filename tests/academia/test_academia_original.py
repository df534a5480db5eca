"""Academia's AgentGym sessions against AgentGym's own server code, as recorded once.

fixtures/record_original.py ran the sessions of fixtures/cases.json through AgentGym's
`AcademiaEnvServer.step` and `.observation` before any graph is loaded: its
action extraction, its env's `eval` parser and error texts, every tool's answer before loading,
the progress rate and the academia server's reward (the raw progress rate). Our env must
answer alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.academia.helpers import env_with, task_of

FIXTURES = Path(__file__).parent / "fixtures"
CASES = {c["name"]: c for c in json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))["cases"]}
ORIGINAL = json.loads((FIXTURES / "original.json").read_text(encoding="utf-8"))["sessions"]


@pytest.mark.parametrize("session", ORIGINAL, ids=[s["name"] for s in ORIGINAL])
def test_agentgym_session_answers_as_the_original(session: dict[str, Any]) -> None:
    case = CASES[session["name"]]
    env = env_with([task_of(case["task"])])
    env.agentgym = True
    assert env.reset(task_id=case["task"]["task_id"]).observation == session["first"]
    for recorded in session["steps"]:
        result = env.step(recorded["action"], after_done=True)
        got = (result.observation, result.reward, result.done)
        assert got == (recorded["observation"], recorded["reward"], recorded["done"]), recorded["action"]
    assert env.agentgym_profile.adapt(env).observation() == session["observation_after"]
