"""The reward: BIRD's execution accuracy, one question at a time.

BIRD's evaluation (`bird/llm/src/evaluation.py` of DAMO-ConvAI, `execute_model`) runs the
predicted and then the gold SQL on the question's database and counts the question correct
when both ran and their results are equal as *sets* of rows: row order and duplicates do not
matter, column order and values do (1 equals 1.0, not '1'). A statement that raised or ran past
the time limit makes the question wrong. SQLGym's reward is the same comparison. Here a
prediction the sandbox refused or cut at the row cap is wrong too; BIRD runs it writable and
unbounded (docs/birdsql.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coevo.envs.birdsql.sandbox import QueryResult

Rows = Sequence[tuple[Any, ...]]


def execution_match(predicted: Rows, gold: Rows) -> bool:
    """BIRD's per-question test on two results that ran: equal as sets of rows."""
    return set(predicted) == set(gold)


def execution_accuracy(predicted: QueryResult, gold: QueryResult) -> float:
    """1.0 when both ran in full (no error, stop or cut) and their rows match as sets."""
    if not (predicted.ok and gold.ok) or predicted.truncated or gold.truncated:
        return 0.0
    return 1.0 if execution_match(predicted.rows, gold.rows) else 0.0
