"""Sheet's AgentGym sessions against AgentGym's own server code, as recorded once.

fixtures/record_original.py ran the sessions of fixtures/cases.json through AgentGym's
`SheetEnvServer.step` and `.observation` without Google Sheets (every step one the original
answers before a sheet is open): its action extraction, its env's `eval` parser and error
texts, the log_path check, done on "finish" anywhere in the line, the action space it lists, its
retries of a step whose observation contains "error" (counted), its raw reward, and
`get_match_score` on sheet pairs. Our env must answer alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coevo.envs.sheet.scoring import match_score
from tests.sheet.helpers import env_with

FIXTURES = Path(__file__).parent / "fixtures"
CASES = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
BY_NAME = {c["name"]: c for c in CASES["cases"]}
ORIGINAL = json.loads((FIXTURES / "original.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("session", ORIGINAL["sessions"], ids=[s["name"] for s in ORIGINAL["sessions"]])
def test_agentgym_session_answers_as_the_original(session: dict[str, Any]) -> None:
    case = BY_NAME[session["name"]]
    env = env_with(case["task"]["gold"], goal=case["task"]["goal"])
    env.agentgym = True
    assert env.reset(task_id="t").observation == session["first"]
    runs = [0]
    real_run = env._run

    def counted(line: str) -> str:
        runs[0] += 1
        return real_run(line)

    env._run = counted  # type: ignore[method-assign]
    for recorded in session["steps"]:
        runs[0] = 0
        result = env.step(recorded["action"], after_done=True)
        got = (result.observation, result.reward, result.done, runs[0])
        want = (recorded["observation"], recorded["reward"], recorded["done"], recorded["tries"])
        assert got == want, recorded["action"]
    assert env.agentgym_profile.adapt(env).observation() == session["observation_after"]


def test_match_score_is_the_originals_on_every_recorded_pair() -> None:
    for (sheet, gold), score in zip(CASES["scores"], ORIGINAL["scores"], strict=True):
        assert match_score(sheet, gold) == score, (sheet, gold)
