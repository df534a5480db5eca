"""The reward: BIRD's execution accuracy, one question at a time.

BIRD's evaluation (`bird/llm/src/evaluation.py`, `execute_model` and
`compute_execution_accuracy`) runs the predicted and the gold SQL, stands in `[('error',)]` for
a statement that raised and `[('timeout',)]` for one that ran out of time, and counts a question
correct when the two results are equal as *sets* of rows: row order and duplicates do not
matter, column order and values do. SQLGym's reward is the same comparison, 0 for a prediction
that raised. Here a prediction the sandbox refused, stopped or cut at the row cap scores 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coevo.envs.birdsql.sandbox import QueryResult

Rows = Sequence[tuple[Any, ...]]


def bird_rows(result: QueryResult) -> list[tuple[Any, ...]]:
    """A result as BIRD's evaluation records it: the rows, or its error / timeout stand-in."""
    if result.timed_out:
        return [("timeout",)]
    if not result.ok:
        return [("error",)]
    return list(result.rows)


def execution_match(predicted: Rows, gold: Rows) -> bool:
    """BIRD's per-question test: the results are equal as sets of rows."""
    return set(predicted) == set(gold)


def execution_accuracy(predicted: QueryResult, gold: QueryResult) -> float:
    """1.0 when the prediction ran, was not cut at the row cap, and matches the gold result."""
    if not predicted.ok or predicted.truncated:
        return 0.0
    return 1.0 if execution_match(bird_rows(predicted), bird_rows(gold)) else 0.0
