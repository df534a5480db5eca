"""Judging the agent's API call against the ground-truth turn, in either scoring mode.

API-Bank's evaluator reads the call with its regexes, checks the name, runs the call through a
new ToolManager (fresh databases; list arguments stay strings) and asks the API's rule whether
the result matches the recorded one (its level-3 evaluator skips the name check). The official
mode does exactly that on a fresh sandbox session; the corrected mode runs the call on a throw-away fork of the episode's sandbox (which
has followed the dialogue), reads list arguments as literals, and uses the repaired rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coevo.envs.apibank.modes import ScoringMode
from coevo.envs.apibank.parsing import parse_api_call
from coevo.envs.apibank.sandbox import SandboxSession
from coevo.envs.apibank.scoring import is_correct
from coevo.envs.apibank.tasks import Turn


@dataclass(frozen=True)
class CallVerdict:
    correct: bool
    #: The result dict of running the call (None when it never ran: no call, wrong name).
    api_result: dict[str, Any] | None = None
    #: Why the call is wrong before any rule applies (unparseable, wrong name, rejected input).
    error: str | None = None

    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {"correct": self.correct}
        if self.api_result is not None:
            out["api_result"] = self.api_result
        if self.error is not None:
            out["error"] = self.error
        return out


def judge_call(action: str, truth: Turn, level: int, world: SandboxSession, mode: ScoringMode) -> CallVerdict:
    """Whether `action` makes the call `truth` records; `world` is the episode's sandbox."""
    parsed = parse_api_call(action)
    if parsed is None:
        return CallVerdict(False, error="No API call found")
    # API-Bank's level-3 evaluator never compares names: it runs the call and applies the
    # ground truth API's rule to whatever came back.
    if parsed.name != truth.api_name and not (mode == "official" and level == 3):
        return CallVerdict(False, error=f"API Name Mismatch: {parsed.name} vs {truth.api_name}")
    session = world.fresh(parse_lists=False) if mode == "official" else world.fork()
    outcome = session.call(parsed.name, parsed.arguments)
    correct = outcome.valid and is_correct(level, truth.api_name, outcome.result, truth.result or {}, mode)
    return CallVerdict(correct, outcome.result, None if outcome.valid else outcome.exception)
