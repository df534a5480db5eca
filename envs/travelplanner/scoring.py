"""One plan against one query, as the official evaluation/eval.py scores it.

Commonsense checks run on every delivered (non-empty) plan; the hard constraints only when
"complete information" and "within sandbox" both pass. A plan passes the commonsense (hard)
part when none of those checks answered False (None means "not applicable"), and passes
finally when both parts pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from coevo.envs.travelplanner.commonsense import COMMONSENSE_CHECKS, CheckResult, Day, commonsense_evaluation
from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.hard import HARD_CONSTRAINTS, hard_evaluation, total_cost
from coevo.envs.travelplanner.queries import Query


@dataclass(frozen=True)
class PlanEvaluation:
    delivered: bool
    commonsense: Mapping[str, CheckResult] | None
    hard: Mapping[str, CheckResult] | None
    cost: float | None

    @property
    def commonsense_pass(self) -> bool:
        return self.commonsense is not None and all(ok is not False for ok, _ in self.commonsense.values())

    @property
    def hard_pass(self) -> bool:
        return self.hard is not None and all(ok is not False for ok, _ in self.hard.values())

    @property
    def final_pass(self) -> bool:
        return self.commonsense_pass and self.hard_pass

    def to_dict(self) -> dict[str, Any]:
        """Every check with its paper name, verdict and message (what `info` carries)."""

        def table(results: Mapping[str, CheckResult] | None, names: Mapping[str, str]) -> dict[str, Any] | None:
            if results is None:
                return None
            return {
                key: {"name": names[key], "passed": ok, "message": message} for key, (ok, message) in results.items()
            }

        return {
            "delivered": self.delivered,
            "commonsense": table(self.commonsense, COMMONSENSE_CHECKS),
            "hard": table(self.hard, HARD_CONSTRAINTS),
            "commonsense_pass": self.commonsense_pass,
            "hard_pass": self.hard_pass,
            "final_pass": self.final_pass,
            "cost": self.cost,
        }


def evaluate_plan(query: Query, plan: Sequence[Day] | None, db: Sandbox) -> PlanEvaluation:
    if not plan:
        return PlanEvaluation(delivered=False, commonsense=None, hard=None, cost=None)
    commonsense = commonsense_evaluation(query, plan, db)
    hard = None
    cost = None
    if commonsense["is_not_absent"][0] and commonsense["is_valid_information_in_sandbox"][0]:
        hard = hard_evaluation(query, plan, db)
        try:
            cost = total_cost(query, plan, db)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError):
            cost = None
    return PlanEvaluation(delivered=True, commonsense=commonsense, hard=hard, cost=cost)
