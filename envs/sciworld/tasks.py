"""The task catalogue: AgentGym's SciWorld games, as data (data/tasks.json).

AgentGym's server (`agentenv-sciworld`) numbers its games by walking ScienceWorld's tasks in
order, leaving out seven (5-1, 5-2, 9-1, 9-2, 9-3, 10-1, 10-2), and taking every variation of
each: 4,639 games, index i the i-th (task, variation) pair. The file records those facts once,
read from the simulator's jar (scripts/fidelity/record_sciworld.py), so listing tasks starts no
JVM. coevo's splits are ScienceWorld's own train/dev/test variation splits of the same games.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA = Path(__file__).parent / "data" / "tasks.json"
SPLITS = ("train", "dev", "test")
_SEP = "-var"


@dataclass(frozen=True)
class Game:
    """One (task, variation) pair: what the simulator loads."""

    key: str  # ScienceWorld's task number, e.g. "1-1"
    task: str  # its task name, e.g. "boil"
    variation: int

    @property
    def task_id(self) -> str:
        return f"{self.task}{_SEP}{self.variation}"


@dataclass(frozen=True)
class Catalogue:
    games: tuple[Game, ...]  # AgentGym's index order
    by_split: dict[str, tuple[str, ...]]
    split_of: dict[str, str]
    by_id: dict[str, Game]


@cache
def load() -> Catalogue:
    """The catalogue from data/tasks.json (read once per process)."""
    doc = json.loads(DATA.read_text())
    games: list[Game] = []
    split_of: dict[str, str] = {}
    for entry in doc["tasks"]:
        for variation in range(entry["variations"]):
            games.append(Game(entry["key"], entry["name"], variation))
        for split in SPLITS:
            for start, stop in entry["splits"][split]:
                for variation in range(start, stop):
                    split_of[Game(entry["key"], entry["name"], variation).task_id] = split
    by_split = {split: tuple(g.task_id for g in games if split_of[g.task_id] == split) for split in SPLITS}
    return Catalogue(tuple(games), by_split, split_of, {g.task_id: g for g in games})
