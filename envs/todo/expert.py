"""TODOList's expert: fulfils a request of a known kind by calling the sandbox's tools (ids read
from get_projects / get_tasks, never assumed) and records the calls as the plan it replays."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from coevo.envs.todo.toolkit import TodoToolkit
from coevo.envs.toolusage.env import tool_line


class Solver:
    def __init__(self, toolkit: TodoToolkit) -> None:
        self.toolkit = toolkit
        self.lines: list[str] = []

    def call(self, tool: str, **arguments: Any) -> Any:
        self.lines.append(tool_line(tool, arguments))
        return self.toolkit.call(tool, arguments)

    def projects(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.call("get_projects")
        return found

    def project_id(self, name: str) -> str:
        return str(next(p["id"] for p in self.projects() if p["name"] == name))

    def tasks(self, project_id: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = self.call("get_tasks", project_id=project_id)
        return found

    def find_task(self, content: str) -> tuple[str, dict[str, Any]]:
        """(project id, task record): the projects' open tasks, read until the task shows."""
        for project in self.projects():
            for task in self.tasks(project["id"]):
                if task["content"] == content:
                    return project["id"], task
        raise LookupError(content)

    def all_tasks(self) -> list[dict[str, Any]]:
        return [task for project in self.projects() for task in self.tasks(project["id"])]


def _due_date(s: Solver, p: Mapping[str, Any]) -> Any:
    tasks = s.tasks(s.project_id(p["project"]))
    return next(t["due_date"] for t in tasks if t["content"] == p["task"])


def _description(s: Solver, p: Mapping[str, Any]) -> Any:
    _, task = s.find_task(p["task"])
    return s.call("get_task_description", task_id=task["id"])["description"]


def _duration_total(s: Solver, p: Mapping[str, Any]) -> Any:
    total, unit = 0, "minute"
    for task in s.tasks(s.project_id(p["project"])):
        text = s.call("get_task_duration", task_id=task["id"])["duration"]
        amount, _, rest = text.partition("(")
        total, unit = total + int(amount), rest.rstrip(")")
    return f"{total}({unit})"


def _count_before(s: Solver, p: Mapping[str, Any]) -> Any:
    return sum(1 for t in s.all_tasks() if t["due_date"] < p["date"])


def _tasks_before(s: Solver, p: Mapping[str, Any]) -> Any:
    return sorted(t["content"] for t in s.all_tasks() if t["due_date"] < p["date"])


def _most_tasks(s: Solver, p: Mapping[str, Any]) -> Any:
    counts = {project["name"]: len(s.tasks(project["id"])) for project in s.projects()}
    return max(counts, key=lambda name: counts[name])


def _top_priority(s: Solver, p: Mapping[str, Any]) -> Any:
    tasks = s.tasks(s.project_id(p["project"]))
    return max(tasks, key=lambda t: t["priority"])["content"]


def _favorite_project(s: Solver, p: Mapping[str, Any]) -> Any:
    project_id, _ = s.find_task(p["task"])
    s.call("update_project", project_id=project_id, is_favorite="True")
    return "done"


def _complete(s: Solver, p: Mapping[str, Any]) -> Any:
    _, task = s.find_task(p["task"])
    s.call("complete_task", task_id=task["id"])
    return "done"


def _delete(s: Solver, p: Mapping[str, Any]) -> Any:
    _, task = s.find_task(p["task"])
    s.call("delete_task", task_id=task["id"])
    return "done"


def _postpone(s: Solver, p: Mapping[str, Any]) -> Any:
    _, task = s.find_task(p["task"])
    s.call("update_task", task_id=task["id"], due_date=p["date"])
    return "done"


KINDS: dict[str, Callable[[Solver, Mapping[str, Any]], Any]] = {
    "due_date": _due_date,
    "description": _description,
    "duration_total": _duration_total,
    "count_before": _count_before,
    "tasks_before": _tasks_before,
    "most_tasks": _most_tasks,
    "top_priority": _top_priority,
    "favorite_project": _favorite_project,
    "complete": _complete,
    "delete": _delete,
    "postpone": _postpone,
}


def solve(kind: str, toolkit: TodoToolkit, params: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """(answer, action lines ending with finish) for a request of `kind`."""
    solver = Solver(toolkit)
    answer = KINDS[kind](solver, params)
    solver.lines.append(tool_line("finish", {"answer": answer}))
    return answer, solver.lines
