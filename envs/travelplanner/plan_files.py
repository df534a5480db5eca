"""Scoring a file of plans against its queries (what `coevo eval-plans` runs).

The file is JSON Lines, one plan per query, as in the official submission format:
  {"idx": 1, "query": "...", "plan": [{"days": 1, "current_city": "...", ...}, ...]}
- `idx` is the query's 1-based position in the query set; `task_id` ("validation-0") may be
  given instead; with neither, the line number is the idx;
- `plan` is the list of day records, or a string holding JSON or the "Day 1:" text form;
  null, an empty list or an unreadable string counts as not delivered.
A query without a line counts as not delivered, as the official script expects a plan for
every query. The queries are an official query file, or a generated split (seed, size).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.metrics import Scoreboard
from coevo.envs.travelplanner.plans import PlanFormatError, parse_plan
from coevo.envs.travelplanner.queries import Query
from coevo.envs.travelplanner.scoring import PlanEvaluation, evaluate_plan


class PlanFileError(ValueError):
    """A line of the plan file is not a JSON object, or names a query that does not exist."""


@dataclass
class PlanFileScore:
    board: Scoreboard
    unreadable: list[int] = field(default_factory=list)
    evaluations: list[PlanEvaluation] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        return {**self.board.report(), "unreadable_plans": len(self.unreadable)}


def read_plans(path: Path, query_count: int, split: str | None = None) -> tuple[dict[int, Any], list[int]]:
    """0-based query index -> the plan value of its line (and the indexes whose plan is unreadable)."""
    plans: dict[int, Any] = {}
    unreadable: list[int] = []
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PlanFileError(f"{path}:{number}: not JSON ({exc})") from None
        if not isinstance(record, dict):
            raise PlanFileError(f"{path}:{number}: each line must be a JSON object")
        index = _index_of(record, number, split)
        if not 0 <= index < query_count:
            raise PlanFileError(f"{path}:{number}: no query {index + 1} (the query set has {query_count})")
        value = record.get("plan")
        if isinstance(value, str):
            try:
                value = parse_plan(value) if value.strip() else None
            except PlanFormatError:
                unreadable.append(index)
                value = None
        plans[index] = value
    return plans, unreadable


def _index_of(record: dict[str, Any], line_number: int, split: str | None) -> int:
    if "idx" in record:
        return int(record["idx"]) - 1
    task_id = record.get("task_id")
    if isinstance(task_id, str):
        prefix, _, number = task_id.rpartition("-")
        if not number.isdigit() or (split is not None and prefix != split):
            raise PlanFileError(f"task_id {task_id!r} is not a task of split {split!r}")
        return int(number)
    return line_number - 1


def score_plans(queries: Sequence[Query], plans: dict[int, Any], db: Sandbox) -> PlanFileScore:
    result = PlanFileScore(Scoreboard())
    for index, query in enumerate(queries):
        plan = plans.get(index)
        if plan is not None and not (isinstance(plan, list) and all(isinstance(d, dict) for d in plan)):
            plan = None
        evaluation = evaluate_plan(query, plan, db)
        result.board.add(query, evaluation)
        result.evaluations.append(evaluation)
    return result


def score_plan_file(path: Path, queries: Sequence[Query], db: Sandbox, split: str | None = None) -> PlanFileScore:
    plans, unreadable = read_plans(path, len(queries), split)
    scored = score_plans(queries, plans, db)
    scored.unreadable = unreadable
    return scored
