"""AgentBoard's `todo.jsonl`, loaded with the account its requests start from and, for each
request the rules recognise (data/agentboard.json), the expert's plan.

Every task of the original starts from the same Todoist account, refilled from `projects.json`;
the file records, per task, the answer and the account's state after the gold actions. The
loader builds the account from `projects.json` (or, without it, from the first task's recorded
state), pins the free fields the file's answers read (pins.py), carries each recognised request
out through the tools on a copy, and keeps the plan only where the tools' answer is the recorded
one and, for a change, the account ends in the recorded state. Any other task is served without
a plan and its note says why (bench/todo.py lists them).
"""

from __future__ import annotations

import re
from typing import Any

from coevo.envs.todo import pins
from coevo.envs.todo.requests import RULES, Unanswerable, carry_out
from coevo.envs.todo.sandbox import TodoAccount
from coevo.envs.todo.toolkit import TodoToolkit
from coevo.envs.toolusage.env import ToolEnv
from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.tasks import ToolTask, task_from_row


def recognise(goal: str) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The first rule whose pattern matches the request, with the names its groups captured."""
    for rule in RULES["rules"]:
        m = re.search(rule["pattern"], goal, re.IGNORECASE)
        if m is not None:
            # a group named `x_` spells parameter `x` another way (a regex names each group once)
            return rule, {k.rstrip("_"): v for k, v in m.groupdict().items() if v is not None}
    return None


def _same_answer(found: Any, recorded: Any) -> bool:
    """The tools' answer against the recorded one as `finish` records it (a list sorted)."""
    if isinstance(found, list) and isinstance(recorded, list):
        return sorted(map(str, found)) == sorted(map(str, recorded))
    return bool(found == recorded) and type(found) is type(recorded)


def plan_task(
    specs: tuple[ToolSpec, ...], account: TodoAccount, row: dict[str, Any], index: int, max_steps: int
) -> ToolTask:
    """One row as a task: planned where the tools reach its recorded answer and state."""
    info = row["additional_info"]
    found = recognise(str(row["goal"]))
    if found is None:
        return task_from_row(row, index, note="the rules do not recognise the request")
    rule, params = found
    config = info.get("init_config") or {}
    toolkit = TodoToolkit(
        specs, account.copy(), str(config.get("current_date", "")), str(config.get("current_location", ""))
    )
    try:
        answer, plan = carry_out(toolkit, rule, params)
    except Unanswerable as exc:
        return task_from_row(row, index, rule["kind"], note=f"not answerable from the account: {exc}")
    except (KeyError, TypeError, ValueError) as exc:  # a tool answered an error text where a record was read
        return task_from_row(row, index, rule["kind"], note=f"a tool call failed: {type(exc).__name__}({exc})")
    recorded = row["subgoals"][-1] if row["subgoals"] else None
    note = None
    if not _same_answer(answer, recorded):
        note = f"the tools answer {answer!r}, the file records {recorded!r}"
    elif isinstance(info.get("answer"), dict) and toolkit.account.state() != info["answer"]:
        note = "the account does not end in the recorded state"
    elif len(plan) > max_steps:
        note = f"the plan takes {len(plan)} steps, over the {max_steps}-step cap"
    return task_from_row(row, index, rule["kind"], () if note else plan, note)


def load_tasks(specs: tuple[ToolSpec, ...], account: TodoAccount, rows: list[dict[str, Any]]) -> list[ToolTask]:
    """The file's rows in order (AgentGym's index), each planned where it can be, on the account
    with the file's free fields pinned (pins.py; changed in place: it is the loaded tasks' account)."""
    pins.pin(account, rows, recognise)
    return [plan_task(specs, account, row, index, ToolEnv.max_steps) for index, row in enumerate(rows)]
