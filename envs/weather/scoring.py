"""Weather's reward: AgentBoard's progress rate with its location rule (a subgoal with latitude
and longitude matches within 50 km, its other fields equal); envs/toolusage/progress.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coevo.envs.toolusage.progress import Matcher, progress_rate, same_place

MATCHER: Matcher = same_place


def score(gold: Sequence[Any], produced: Sequence[Any]) -> float:
    return progress_rate(gold, produced, MATCHER)
