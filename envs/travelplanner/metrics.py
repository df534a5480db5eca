"""The six official metrics over a set of queries, aggregated as evaluation/eval.py does.

- Delivery Rate: plans delivered / queries.
- Commonsense Constraint Micro Pass Rate: passed commonsense checks / (8 x queries).
- Commonsense Constraint Macro Pass Rate: plans passing every commonsense check / queries.
- Hard Constraint Micro Pass Rate: passed hard constraints / constraints the queries set, where
  every query counts its budget, a medium query its house rule / cuisine / room type if set,
  and a hard query those and transportation if set (for the official splits: 105, 420, 2290).
- Hard Constraint Macro Pass Rate: plans passing every hard constraint / queries.
- Final Pass Rate: plans passing both / queries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from coevo.envs.travelplanner.commonsense import COMMONSENSE_CHECKS
from coevo.envs.travelplanner.hard import HARD_CONSTRAINTS
from coevo.envs.travelplanner.queries import Query
from coevo.envs.travelplanner.scoring import PlanEvaluation

_MEDIUM_COUNTED = ("house rule", "cuisine", "room type")
_HARD_COUNTED = ("house rule", "cuisine", "room type", "transportation")


def hard_constraint_count(query: Query) -> int:
    """How many hard constraints of this query the official micro rate's denominator counts."""
    counted = {"medium": _MEDIUM_COUNTED, "hard": _HARD_COUNTED}.get(query.level, ())
    return 1 + sum(1 for key in counted if query.constraint(key) is not None)


@dataclass
class Scoreboard:
    """Running totals; add (query, evaluation) pairs, then read `metrics()`."""

    queries: int = 0
    delivered: int = 0
    commonsense_passed_checks: int = 0
    hard_passed_checks: int = 0
    hard_checks_total: int = 0
    commonsense_macro: int = 0
    hard_macro: int = 0
    final: int = 0
    per_constraint: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, query: Query, evaluation: PlanEvaluation) -> None:
        self.queries += 1
        self.hard_checks_total += hard_constraint_count(query)
        if evaluation.delivered:
            self.delivered += 1
        for results, names in ((evaluation.commonsense, COMMONSENSE_CHECKS), (evaluation.hard, HARD_CONSTRAINTS)):
            for key, (ok, _) in (results or {}).items():
                tally = self.per_constraint.setdefault(names[key], {"passed": 0, "failed": 0})
                if ok is True:
                    tally["passed"] += 1
                elif ok is False:
                    tally["failed"] += 1
        if evaluation.commonsense is not None:
            self.commonsense_passed_checks += sum(1 for ok, _ in evaluation.commonsense.values() if ok is True)
        if evaluation.hard is not None:
            self.hard_passed_checks += sum(1 for ok, _ in evaluation.hard.values() if ok is True)
            # The official loop skips plans without a hard verdict before counting either macro.
            if evaluation.commonsense_pass:
                self.commonsense_macro += 1
            if evaluation.hard_pass:
                self.hard_macro += 1
            if evaluation.final_pass:
                self.final += 1

    def metrics(self) -> dict[str, float]:
        n = max(self.queries, 1)
        return {
            "delivery_rate": self.delivered / n,
            "commonsense_micro_pass_rate": self.commonsense_passed_checks / (len(COMMONSENSE_CHECKS) * n),
            "commonsense_macro_pass_rate": self.commonsense_macro / n,
            "hard_micro_pass_rate": self.hard_passed_checks / max(self.hard_checks_total, 1),
            "hard_macro_pass_rate": self.hard_macro / n,
            "final_pass_rate": self.final / n,
        }

    def report(self) -> dict[str, Any]:
        return {"queries": self.queries, **self.metrics(), "per_constraint": self.per_constraint}


def score(pairs: Iterable[tuple[Query, PlanEvaluation]]) -> Scoreboard:
    board = Scoreboard()
    for query, evaluation in pairs:
        board.add(query, evaluation)
    return board
