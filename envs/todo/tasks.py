"""TODOList's tasks: generated accounts and requests (data/accounts.json, data/templates.json;
answers solved on a copy of the account by the expert), and AgentBoard's `todo.jsonl` loaded
from a directory with the account its answers were made on.

AgentBoard's file holds answers, not Todoist's data; the original fills its Todoist account from
`projects.json` (beside its toolkit). The loader reads that file where `data_dir` holds it (or
`projects=` names it); without it the account is rebuilt from the first task's recorded state
(projects and tasks in order, without descriptions or durations). Its requests get the expert's
plan where the rules of data/agentboard.json recognise them and the tools reach the recorded
answer (envs/todo/agentboard.py; bench/todo.py lists the others).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from coevo.envs.todo import agentboard, expert
from coevo.envs.todo.sandbox import Project, Task, TodoAccount
from coevo.envs.todo.toolkit import TodoToolkit
from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.tasks import ToolTask, read_agentboard

DATA = Path(__file__).parent / "data"
ACCOUNTS: dict[str, Any] = json.loads((DATA / "accounts.json").read_text(encoding="utf-8"))
TEMPLATES: dict[str, Any] = json.loads((DATA / "templates.json").read_text(encoding="utf-8"))
#: AgentGym's TODOList file has 155 tasks; the generated test split has as many.
AGENTGYM_TASKS = 155
_FIRST_DAY = date(2015, 1, 1)


@dataclass(frozen=True)
class Generated:
    tasks: list[ToolTask]
    accounts: dict[str, TodoAccount]


def make_account(rng: random.Random, today: date) -> TodoAccount:
    """4 projects of 1-4 tasks (each count once), due from 3 days ago to 20 days ahead, each
    task of a project with its own priority, so every kind has exactly one answer."""
    templates = rng.sample(ACCOUNTS["projects"], 4)
    sizes = rng.sample([1, 2, 3, 4], 4)
    account = TodoAccount()
    ids: set[str] = set()

    def fresh(base: int) -> str:
        while True:
            value = str(base + rng.randrange(10**8))
            if value not in ids:
                ids.add(value)
                return value

    for order, (template, size) in enumerate(zip(templates, sizes), 1):
        project = Project(fresh(2_300_000_000), template["name"], order, rng.choice(ACCOUNTS["colors"]))
        account.projects.append(project)
        chosen = rng.sample(template["tasks"], size)
        priorities = rng.sample([1, 2, 3, 4], size)
        for task_order, ((content, description, minutes), priority) in enumerate(zip(chosen, priorities), 1):
            due = today + timedelta(days=rng.randint(-3, 20))
            account.tasks.append(
                Task(
                    fresh(7_100_000_000),
                    project.id,
                    task_order,
                    content,
                    description,
                    due.isoformat(),
                    minutes,
                    "minute",
                    priority,
                )
            )
    return account


def _params(rng: random.Random, account: TodoAccount, today: date) -> dict[str, Any]:
    task = rng.choice(account.tasks)
    project = rng.choice(account.projects)
    return {
        "task": task.content,
        "project": next(p.name for p in account.projects if p.id == task.project_id)
        if rng.random() < 0.5
        else project.name,
        "task_project": next(p.name for p in account.projects if p.id == task.project_id),
        "date": (today + timedelta(days=rng.randint(1, 15))).isoformat(),
    }


def generate(
    specs: tuple[ToolSpec, ...], split: str, count: int, seed: int, exclude: frozenset[str] = frozenset()
) -> Generated:
    """`count` requests cycling through the kinds; none whose text is in `exclude` (the held-out
    split's requests, when generating the training split: a kind whose text names nothing, as
    "which project has the most tasks", is then held out entirely)."""
    rng = random.Random(f"todo|{split}|{seed}")
    kinds = sorted(TEMPLATES["templates"])
    tasks: list[ToolTask] = []
    accounts: dict[str, TodoAccount] = {}
    attempts = 0
    while len(tasks) < count:
        kind = kinds[attempts % len(kinds)]
        attempts += 1
        index = len(tasks)
        today = _FIRST_DAY + timedelta(days=rng.randrange(3650))
        account = make_account(rng, today)
        params = _params(rng, account, today)
        if kind == "due_date":
            params["project"] = params["task_project"]
        goal = TEMPLATES["templates"][kind].format(**params)
        if goal in exclude:
            continue
        toolkit = TodoToolkit(specs, account.copy(), today.isoformat(), "New York")
        answer, plan = expert.solve(kind, toolkit, params)
        task_id = f"{split}-{index}"
        accounts[task_id] = account
        tasks.append(
            ToolTask(
                task_id=task_id,
                goal=goal,
                subgoals=(answer,),
                answer={"final_state": toolkit.account.state(), "answer": answer},
                init_config={"current_date": today.isoformat(), "current_location": "New York"},
                goal_type=0,
                kind=kind,
                plan=tuple(plan),
                index=index,
            )
        )
    return Generated(tasks, accounts)


def _account_from_projects_file(path: Path) -> TodoAccount:
    """The original's projects.json: projects with their tasks, ids given in order."""
    account = TodoAccount()
    for order, row in enumerate(json.loads(path.read_text(encoding="utf-8")), 1):
        project = Project(
            str(2_300_000_000 + order), row["name"], order, "charcoal", bool(row.get("is_favorite", False))
        )
        account.projects.append(project)
        for task_order, t in enumerate(row["tasks"], 1):
            account.tasks.append(
                Task(
                    f"{project.id}{task_order:02d}",
                    project.id,
                    task_order,
                    t["content"],
                    t.get("description", ""),
                    t["due_date"],
                    int(t.get("duration", 0)),
                    t.get("duration_unit", "minute"),
                    int(t.get("priority", 1)),
                )
            )
    return account


def _account_from_state(state: dict[str, Any]) -> TodoAccount:
    """An account rebuilt from a recorded state: a task's `order` starting again at 1 begins the
    next project's tasks (the file lists them project by project)."""
    account = TodoAccount()
    for order, row in enumerate(state.get("projects", []), 1):
        account.projects.append(
            Project(
                str(2_300_000_000 + order),
                row["name"],
                row.get("order", order),
                row.get("color", "charcoal"),
                bool(row.get("is_favorite", False)),
            )
        )
    project_index, previous = -1, None
    for row in state.get("tasks", []):
        if previous is None or row["order"] <= previous:
            project_index += 1
        previous = row["order"]
        project = account.projects[min(project_index, len(account.projects) - 1)]
        account.tasks.append(
            Task(
                f"{project.id}{row['order']:02d}",
                project.id,
                row["order"],
                row["content"],
                "",
                row["due_date"],
                0,
                "minute",
                row.get("priority", 1),
                bool(row.get("is_completed", False)),
            )
        )
    return account


def _projects_file(data_dir: Path, projects: str | None) -> Path | None:
    if projects:
        return Path(projects)
    for candidate in (
        data_dir / "projects.json",
        data_dir.parent / "toolusage" / "utils" / "todo" / "projects.json",
        data_dir / "toolusage" / "utils" / "todo" / "projects.json",
    ):
        if candidate.is_file():
            return candidate
    return None


def load_file(specs: tuple[ToolSpec, ...], data_dir: str, projects: str | None) -> tuple[list[ToolTask], TodoAccount]:
    """AgentBoard's todo tasks in file order (AgentGym's index), planned where the rules
    recognise them (envs/todo/agentboard.py), and the account they start from."""
    folder = Path(data_dir)
    path = folder / "todo.jsonl" if folder.is_dir() else folder
    if not path.is_file() and (folder / "data" / "todo.jsonl").is_file():
        folder, path = folder / "data", folder / "data" / "todo.jsonl"
    rows = read_agentboard(path, "file")
    source = _projects_file(folder if folder.is_dir() else folder.parent, projects)
    if source is not None:
        account = _account_from_projects_file(source)
    else:
        first = rows[0]["additional_info"].get("answer") if rows else None
        account = _account_from_state(first if isinstance(first, dict) else {})
    return agentboard.load_tasks(specs, account, rows), account
