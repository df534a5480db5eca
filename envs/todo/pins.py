"""The loaded account made to agree with AgentBoard's recorded answers where they read fields
that no recorded state holds (descriptions, durations), the way the issue asks the sandbox's data
to be built: consistent with the answers.

Recorded states hold projects, contents, priorities and due dates, so those stay as the
original's `projects.json` gives them. Two kinds of request fix a free field:

- a request for a named task's description: that task's description becomes the recorded text;
- a change that selects a project's tasks by duration ("less than 30 minutes"): the tasks the
  recorded state shows changed get a duration inside the threshold, the project's other tasks one
  outside it (only where they are not already).

Every task is planned afterwards on the pinned account, so a pin that contradicts another task's
answer shows as that task's exception, never as a silent win.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coevo.envs.todo.requests import Unanswerable, minutes
from coevo.envs.todo.sandbox import Task, TodoAccount

Recognise = Callable[[str], "tuple[dict[str, Any], dict[str, str]] | None"]


def _recorded(row: dict[str, Any]) -> Any:
    return row["subgoals"][-1] if row["subgoals"] else None


def _named(account: TodoAccount, name: str) -> Task | None:
    wanted = name.strip().strip("\"'")
    return next((t for t in account.tasks if t.content == wanted), None)


def pin_description(account: TodoAccount, rule: dict[str, Any], params: dict[str, str], row: dict[str, Any]) -> None:
    recorded = _recorded(row)
    if rule.get("field") == "description" and isinstance(recorded, str):
        task = _named(account, params["task"])
        if task is not None:
            task.description = recorded


def _changed(account: TodoAccount, task: Task, state: dict[str, Any]) -> bool:
    """Whether the recorded state shows `task` changed: gone from the open tasks, or re-dated."""
    after = next((t for t in state.get("tasks", []) if t.get("content") == task.content), None)
    return after is None or after.get("due_date") != task.due_date


def pin_durations(account: TodoAccount, rule: dict[str, Any], params: dict[str, str], row: dict[str, Any]) -> None:
    state = row["additional_info"].get("answer")
    bound = "duration_lt" if "duration_lt" in params else "duration_gt" if "duration_gt" in params else None
    if rule.get("op") != "change" or bound is None or not isinstance(state, dict) or "project" not in params:
        return
    try:
        limit = minutes(params[bound])
    except Unanswerable:
        return
    wanted = params["project"].strip().strip("\"'").lower()
    project = next((p for p in account.projects if p.name.lower() in (wanted, wanted.removesuffix(" project"))), None)
    if project is None:
        return
    inside = limit - 5 if bound == "duration_lt" else limit + 5
    for task in account.open_tasks(project.id):
        selected = task.duration < limit if bound == "duration_lt" else task.duration > limit
        if selected != _changed(account, task, state):
            task.duration = inside if not selected else limit


PINS = (pin_description, pin_durations)


def pin(account: TodoAccount, rows: list[dict[str, Any]], recognise: Recognise) -> None:
    """Apply every pin the recognised rows call for, in file order (changes `account` in place)."""
    for row in rows:
        found = recognise(str(row["goal"]))
        if found is not None:
            for apply in PINS:
                apply(account, found[0], found[1], row)
