"""A Sheet env over sheets a test makes up."""

from __future__ import annotations

from typing import Any

from coevo.envs.sheet.env import SheetEnv, SheetShared
from coevo.envs.sheet.workbook import SheetSpec
from coevo.envs.toolusage.tasks import TaskSet, ToolTask

PRODUCTS = [
    ["Product", "Category", "Price", "Quantity"],
    ["beef", "Meat", 8.5, 13.0],
    ["pork", "Meat", 3.2, 7.0],
    ["apple", "Fruits", 1.2, 120.0],
    ["carrot", "Vegetables", 0.4, 80.0],
]
FORMATS = ["General", "General", "#,##0.00", "#,##0.00"]


def spec(title: str = "Sheet1", rows: list[list[Any]] | None = None, notes: tuple[Any, ...] = ()) -> SheetSpec:
    rows = PRODUCTS if rows is None else rows
    cells = tuple(
        (r, c, value, FORMATS[c - 1] if r > 1 and c <= len(FORMATS) else "General")
        for r, row in enumerate(rows, 1)
        for c, value in enumerate(row, 1)
    )
    return SheetSpec(title, cells, notes)


def env_with(gold: list[list[str]], sheet: SheetSpec | None = None, goal: str = 'Fix "Sheet1".') -> SheetEnv:
    task = ToolTask("t", goal, (), gold)
    shared = SheetShared(TaskSet({"train": [], "test": [task]}), {"t": sheet or spec()})
    env = SheetEnv(shared=shared)
    env.reset(task_id="t")
    return env


def act(env: SheetEnv, tool: str, params: str = "{}") -> str:
    return env.step(f"Action: {tool} with Action Input: {params}").observation
