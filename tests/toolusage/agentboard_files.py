"""AgentBoard-format task files written by the tests of the tool envs' loaders (made-up
questions in the original's layout), and the expert played through a loaded task."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from coevo.envs.base import Env, StepResult


def agentboard_row(
    goal: str, answer: Any, tool: str, *, init_config: Mapping[str, Any] | None = None, difficulty: str = "hard"
) -> dict[str, Any]:
    """One task as AgentBoard's files hold it (its id is its line's index: write_agentboard)."""
    return {
        "goal": goal,
        "subgoals": [answer],
        "additional_info": {
            "answer": answer,
            "init_config": dict(init_config) if init_config is not None else None,
            "goal_type": 0,
            "tool": tool,
        },
        "difficulty": difficulty,
    }


def write_agentboard(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """`rows` as a JSON-lines task file, each with its index as id."""
    path.write_text("".join(json.dumps({"id": i, **row}) + "\n" for i, row in enumerate(rows)), encoding="utf-8")


def play_expert(env: Env, task_id: str) -> list[tuple[str, StepResult]]:
    """Every (action, result) of the expert's episode on `task_id`, from reset to the end of its plan."""
    env.reset(task_id=task_id)
    steps = []
    while (action := env.expert_action()) is not None:
        steps.append((action, env.step(action)))
    return steps
