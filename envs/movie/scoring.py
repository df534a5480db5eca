"""Movie's reward: AgentBoard's progress rate with plain equality (envs/toolusage/progress.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coevo.envs.toolusage.progress import progress_rate


def score(gold: Sequence[Any], produced: Sequence[Any]) -> float:
    return progress_rate(gold, produced)
