"""BabyAI's task list as AgentGym serves it: an item index names a level and a reset seed.

AgentGym's BabyAI server resets item `data_idx` to level `levels[data_idx % 40]` with seed
`data_idx // 40` (data/levels.json keeps the 40 levels in its order). The catalogue is the 900
items its README counts: test items 0-89 (its evaluation set), train items 90-899.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from coevo.envs.base import UnknownTask

LEVELS_FILE = Path(__file__).parent / "data" / "levels.json"
_TASK_ID = re.compile(r"babyai_(\d+)")


@dataclass(frozen=True)
class Task:
    """One AgentGym item: its index, the minigrid level and the seed it resets with."""

    index: int
    level: str
    seed: int

    @property
    def task_id(self) -> str:
        return task_id(self.index)


@dataclass(frozen=True)
class Catalogue:
    levels: tuple[str, ...]
    #: split -> [first index, stop index)
    splits: dict[str, tuple[int, int]]
    #: level -> {"entry_point", "kwargs"}: levels made from their old registration
    specs: dict[str, dict[str, Any]]

    def task(self, index: int) -> Task:
        """AgentGym's item `index`, whatever the split."""
        if index < 0:
            raise UnknownTask(f"task index {index} is negative")
        return Task(index, self.levels[index % len(self.levels)], index // len(self.levels))

    def split_of(self, index: int) -> str:
        for split, (start, stop) in self.splits.items():
            if start <= index < stop:
                return split
        raise UnknownTask(f"task index {index} is in none of the splits {self.splits}")


def task_id(index: int) -> str:
    """The task id of item `index` (AgentGym's item ids: `babyai_<index>`)."""
    return f"babyai_{index}"


def parse_task_id(value: str) -> int:
    """The item index a task id names; UnknownTask for anything else."""
    m = _TASK_ID.fullmatch(value)
    if m is None:
        raise UnknownTask(f"unknown task id {value!r}; BabyAI's ids are babyai_<index>")
    return int(m.group(1))


@cache
def catalogue() -> Catalogue:
    raw = json.loads(LEVELS_FILE.read_text())
    splits = {name: (int(start), int(stop)) for name, (start, stop) in raw["splits"].items()}
    return Catalogue(tuple(raw["levels"]), splits, dict(raw.get("specs", {})))
