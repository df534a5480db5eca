"""The sessions a tool env's fixtures/record_original.py ran once through AgentGym's own server
code, and the check every tool env's test_<env>_original.py makes with them: our env, in an
AgentGym session, answers the first observation, every step and the last /observation as the
original did."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from coevo.envs.toolusage.env import ToolEnv


def recorded_sessions(fixtures: Path) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """(the cases of `fixtures`/cases.json by name, the sessions recorded in `fixtures`/original.json)."""
    cases = json.loads((fixtures / "cases.json").read_text(encoding="utf-8"))["cases"]
    original = json.loads((fixtures / "original.json").read_text(encoding="utf-8"))["sessions"]
    return {c["name"]: c for c in cases}, original


def assert_answers_as_recorded(env: ToolEnv, case: dict[str, Any], session: dict[str, Any]) -> None:
    """Play `case` on `env` (over the case's task) as an AgentGym session; every answer must be `session`'s."""
    env.agentgym = True
    assert env.reset(task_id=case["task"]["task_id"]).observation == session["first"]
    for recorded in session["steps"]:
        result = env.step(recorded["action"], after_done=True)
        got = (result.observation, result.reward, result.done)
        assert got == (recorded["observation"], recorded["reward"], recorded["done"]), recorded["action"]
    assert env.agentgym_profile.adapt(env).observation() == session["observation_after"]
