"""TODOList's AgentGym sessions against AgentGym's own server code, as recorded once.

fixtures/record_original.py ran the sessions of fixtures/cases.json through AgentGym's
`TodoEnvServer.step` and `.observation` with Todoist's reads answering an empty account: its
action extraction, its env's `eval` parser and error texts, the subgoal cleaning (a list answer
of dicts without ids fails there), the progress rate and the todo server's own reward (the raw
rate; at `finish` 1.0 only with the rate 1.0 and the recorded state). Our env must answer alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.todo.helpers import env_with, task_of
from tests.toolusage.original_sessions import assert_answers_as_recorded, recorded_sessions

CASES, ORIGINAL = recorded_sessions(Path(__file__).parent / "fixtures")


@pytest.mark.parametrize("session", ORIGINAL, ids=[s["name"] for s in ORIGINAL])
def test_agentgym_session_answers_as_the_original(session: dict[str, Any]) -> None:
    case = CASES[session["name"]]
    assert_answers_as_recorded(env_with([task_of(case["task"])]), case, session)
