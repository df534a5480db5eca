"""TextCraft's tasks in AgentGym's index order, and our train/test splits over them.

AgentGym's server picks task `data_idx % 544` of its items sorted by recipe depth; each task
shows the recipes of the goal's tree and up to ten distractors, shuffled. data/tasks.json holds
the 544 tasks as that code drew them (scripts/fidelity/record_textcraft.py; docs/textcraft.md
says how its file order and hash seed were pinned). Task `textcraft-<i>` is AgentGym index i.
AgentGym's own 374/100 train/test item lists are not published with its code, so the split is
ours: every fifth index (0, 5, 10, ...) is held out as `test`, which spreads it over all depths.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from coevo.envs.textcraft.crafting import display_name

DATA = Path(__file__).parent / "data" / "tasks.json"
PREFIX = "textcraft-"
TEST_EVERY = 5


@dataclass(frozen=True)
class Task:
    index: int
    goal: str
    depth: int
    commands: tuple[str, ...]

    @property
    def task_id(self) -> str:
        return f"{PREFIX}{self.index}"

    @property
    def split(self) -> str:
        return "test" if self.index % TEST_EVERY == 0 else "train"

    def observation(self) -> str:
        """The first observation, as AgentGym's /reset answers it."""
        return f"Crafting commands:\n{chr(10).join(self.commands)}\n\nGoal: craft {display_name(self.goal)}."


def load(path: Path = DATA) -> list[Task]:
    rows = json.loads(path.read_text(encoding="utf-8"))["tasks"]
    tasks = [Task(r["index"], r["goal"], r["depth"], tuple(r["commands"])) for r in rows]
    if [t.index for t in tasks] != list(range(len(tasks))):
        raise ValueError(f"{path}: tasks must be listed in index order 0..{len(tasks) - 1}")
    return tasks


def index_of(task_id: str) -> int | None:
    """The AgentGym index a task id names, or None when it names none."""
    number = task_id.removeprefix(PREFIX)
    if number == task_id or not (number.isascii() and number.isdigit()) or (len(number) > 1 and number.startswith("0")):
        return None
    return int(number)
