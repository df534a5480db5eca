"""Held-out scores as metrics rows, the same way in every trainer.

A trainer scores its agent on fixed held-out task lists at points of its run (AgentEvol after
each stage, GenEnv after each arm's epoch and once for the starting agent). Each split's score
(coevo.client.heldout.HeldoutRow, or anything with `metrics()`) becomes one row of kind
"heldout", tagged with the point it was taken at, so plots, tables and the UI read every
trainer's held-out results alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from coevo.training.metrics_log import Row

HELDOUT = "heldout"


class ScoredSplit(Protocol):
    """One held-out split's score: env, split, n, success rate and its interval, mean reward."""

    def metrics(self) -> dict[str, Any]: ...


def heldout_rows(at: Mapping[str, Any], scored: Iterable[ScoredSplit | Mapping[str, Any]]) -> list[Row]:
    """One "heldout" row per split: the point `at` (in its order, e.g. arm and epoch) then the
    split's metrics. A mapping stands for metrics already taken (a stage row's "heldout" list)."""
    return [{"kind": HELDOUT, **at, **(dict(s) if isinstance(s, Mapping) else s.metrics())} for s in scored]
