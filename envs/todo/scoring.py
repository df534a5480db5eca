"""TODOList's reward: AgentBoard's progress rate with plain equality (envs/toolusage/progress.py),
and, for coevo's native info, whether the account ends in the state the task expects."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coevo.envs.toolusage.progress import progress_rate


def score(gold: Sequence[Any], produced: Sequence[Any]) -> float:
    return progress_rate(gold, produced)
