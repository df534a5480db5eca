"""TODOList's tools over the sandbox account, answering as the original's toolkit does over
Todoist: the same cleaned records and messages, its "is not exists" texts where it checks a task
first, and Todoist's own answers (`Task not found`, `Project not found`, an empty list for an
unknown project) where it passes the service's text on."""

from __future__ import annotations

from collections.abc import Sequence
from copy import deepcopy
from datetime import date
from typing import Any

from coevo.envs.todo.sandbox import TodoAccount
from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.toolkit import Toolkit

TASK_NOT_FOUND = "Task not found"
PROJECT_NOT_FOUND = "Project not found"
BAD_VALUE = "Invalid argument value"


def clean_subgoal(result: Any) -> Any:
    """The original's `clean_observation`: ids dropped (a list item that is a dict without an
    id raises KeyError there, and here)."""
    cleaned = deepcopy(result)
    if isinstance(cleaned, list):
        for item in cleaned:
            if isinstance(item, dict):
                item.pop("id")
    elif isinstance(cleaned, dict):
        cleaned.pop("id", None)
        if "task" in cleaned:
            cleaned["task"].pop("id")
        if "project" in cleaned:
            cleaned["project"].pop("id")
    return cleaned


def _flag(value: Any) -> bool | None:
    text = str(value).strip().lower()
    return True if text in ("true", "1") else False if text in ("false", "0") else None


class TodoToolkit(Toolkit):
    def __init__(self, specs: Sequence[ToolSpec], account: TodoAccount, current_date: str, current_location: str):
        super().__init__(specs)
        self.account = account  # the session's own copy
        self.current_date = current_date
        self.current_location = current_location

    def subgoal(self, tool: str, result: Any) -> Any:
        return clean_subgoal(result)

    def get_user_current_date(self) -> tuple[bool, Any]:
        return True, self.current_date

    def get_user_current_location(self) -> tuple[bool, Any]:
        return True, self.current_location

    def get_projects(self) -> tuple[bool, Any]:
        return True, [p.record() for p in self.account.projects]

    def update_project(self, project_id: Any, is_favorite: Any) -> tuple[bool, Any]:
        project = self.account.project(project_id)
        if project is None:
            return False, PROJECT_NOT_FOUND
        if is_favorite is not None:
            flag = _flag(is_favorite)
            if flag is None:
                return False, BAD_VALUE
            project.is_favorite = flag
        return True, {"message": "Update the project successfully.", "project": project.record()}

    def get_tasks(self, project_id: Any) -> tuple[bool, Any]:
        return True, [t.record() for t in self.account.open_tasks(project_id)]

    def get_task_description(self, task_id: Any) -> tuple[bool, Any]:
        task = self.account.task(task_id)
        if task is None:
            return False, TASK_NOT_FOUND
        return True, {"id": task.id, "content": task.content, "description": task.description}

    def get_task_duration(self, task_id: Any) -> tuple[bool, Any]:
        task = self.account.task(task_id)
        if task is None:
            return False, TASK_NOT_FOUND
        return True, {"id": task.id, "content": task.content, "duration": f"{task.duration}({task.duration_unit})"}

    def complete_task(self, task_id: Any) -> tuple[bool, Any]:
        task = self.account.task(task_id)
        if task is None:
            return False, f"Task {task_id} is not exists."
        record = task.record()
        record.pop("is_completed")
        task.is_completed = True
        return True, {"message": "Complete task successfully.", "task": record}

    def update_task(self, task_id: Any, due_date: Any) -> tuple[bool, Any]:
        task = self.account.task(task_id)
        if task is None:
            return False, TASK_NOT_FOUND
        try:
            task.due_date = date.fromisoformat(str(due_date)).isoformat()
        except ValueError:
            return False, BAD_VALUE
        return True, {"message": "Update the task successfully", "task": task.record()}

    def delete_task(self, task_id: Any) -> tuple[bool, Any]:
        task = self.account.task(task_id)
        if task is None:
            return False, f"Task {task_id} is not exists."
        self.account.tasks.remove(task)
        return True, {"message": "Delete the task successfully.", "task": task.record()}
