"""A TODOList env over tasks and accounts a test makes up."""

from __future__ import annotations

from typing import Any

from coevo.envs.todo.env import TodoEnv, TodoShared
from coevo.envs.todo.sandbox import TodoAccount
from coevo.envs.toolusage.tasks import TaskSet, ToolTask


def task_of(case: dict[str, Any]) -> ToolTask:
    return ToolTask(
        task_id=case["task_id"],
        goal=case["goal"],
        subgoals=tuple(case["subgoals"]),
        answer=case["answer"],
        init_config=case["init_config"],
    )


def env_with(tasks: list[ToolTask], account: TodoAccount | None = None) -> TodoEnv:
    accounts = {t.task_id: account or TodoAccount() for t in tasks}
    return TodoEnv(shared=TodoShared(TaskSet({"train": [], "test": tasks}), accounts))
