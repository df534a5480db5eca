"""The task record the five tool envs share, and the reader of AgentBoard's task files
(`Toolusage/data/<env>.jsonl`: one JSON object a line with `id`, `goal`, `subgoals` and
`additional_info` holding `answer`, `init_config`, `goal_type` and `tool`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ToolTask:
    task_id: str
    goal: str
    #: AgentBoard's subgoals: what the progress rate counts.
    subgoals: tuple[Any, ...]
    answer: Any
    #: The user's situation (Weather: current_date and current_location).
    init_config: Mapping[str, Any] = field(default_factory=dict)
    goal_type: int | None = None
    difficulty: str | None = None
    #: The generator's template, or the kind a loader recognised; None: unknown to the expert.
    kind: str | None = None
    #: The gold action lines the expert replays (empty: no plan known).
    plan: tuple[str, ...] = ()
    #: Index in its file (AgentGym's task index for a loaded file).
    index: int = 0
    #: Why a loaded task has no plan (unrecognised, or what the tools answer instead); None otherwise.
    note: str | None = None


def read_agentboard(path: Path, prefix: str) -> list[dict[str, Any]]:
    """The raw rows of one AgentBoard task file, checked for the fields every env reads."""
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            if not isinstance(row, dict) or "goal" not in row or "subgoals" not in row:
                raise ValueError(f"{path}:{number}: not an AgentBoard task (needs goal and subgoals)")
            row.setdefault("additional_info", {})
            row["_task_id"] = f"{prefix}-{row.get('id', len(rows))}"
            rows.append(row)
    return rows


def task_from_row(
    row: Mapping[str, Any], index: int, kind: str | None = None, plan: Sequence[str] = (), note: str | None = None
) -> ToolTask:
    info = row.get("additional_info", {})
    return ToolTask(
        task_id=str(row["_task_id"]),
        goal=str(row["goal"]),
        subgoals=tuple(row["subgoals"]),
        answer=info.get("answer"),
        init_config=dict(info.get("init_config") or {}),
        goal_type=info.get("goal_type"),
        difficulty=row.get("difficulty"),
        kind=kind,
        plan=tuple(plan),
        index=index,
        note=note,
    )


@dataclass(frozen=True)
class TaskSet:
    """Tasks by split, in AgentGym's index order within each split, and by id."""

    splits: dict[str, list[ToolTask]]
    by_id: dict[str, tuple[str, ToolTask]] = field(init=False)

    def __post_init__(self) -> None:
        by_id = {t.task_id: (split, t) for split, tasks in self.splits.items() for t in tasks}
        object.__setattr__(self, "by_id", by_id)
