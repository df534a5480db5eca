"""The to-do sandbox: one account's projects and tasks, shaped as Todoist's REST API (v2) keeps
them, and the records its answers carry after the original's cleaning.

Each session works on its own copy of its task's account (`copy`), so a change made in one
session is seen by no other, and fork and replay rebuild it by replaying the actions.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Project:
    id: str
    name: str
    order: int
    color: str = "charcoal"
    is_favorite: bool = False

    def record(self) -> dict[str, Any]:
        """The project as the original's `get_projects` shows it (`_clean_project`)."""
        return {
            "id": self.id,
            "order": self.order,
            "color": self.color,
            "name": self.name,
            "is_favorite": self.is_favorite,
        }


@dataclass
class Task:
    id: str
    project_id: str
    order: int
    content: str
    description: str
    due_date: str
    duration: int
    duration_unit: str
    priority: int
    is_completed: bool = False

    def record(self) -> dict[str, Any]:
        """The task as the original's `_clean_task` leaves it."""
        return {
            "id": self.id,
            "order": self.order,
            "content": self.content,
            "is_completed": self.is_completed,
            "priority": self.priority,
            "due_date": self.due_date,
        }


@dataclass
class TodoAccount:
    projects: list[Project] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)

    def copy(self) -> TodoAccount:
        return copy.deepcopy(self)

    def project(self, project_id: Any) -> Project | None:
        return next((p for p in self.projects if p.id == str(project_id)), None)

    def task(self, task_id: Any) -> Task | None:
        """An open task by id (Todoist's task lookup does not find a completed or deleted one)."""
        return next((t for t in self.tasks if t.id == str(task_id) and not t.is_completed), None)

    def open_tasks(self, project_id: Any) -> list[Task]:
        return [t for t in self.tasks if t.project_id == str(project_id) and not t.is_completed]

    def state(self) -> dict[str, Any]:
        """The account as AgentGym's todo server compares it at the end (`get_todo_status`):
        the projects and, project by project, their open tasks, without ids."""
        projects = [{k: v for k, v in p.record().items() if k != "id"} for p in self.projects]
        tasks = [
            {k: v for k, v in t.record().items() if k != "id"} for p in self.projects for t in self.open_tasks(p.id)
        ]
        return {"projects": projects, "tasks": tasks}
