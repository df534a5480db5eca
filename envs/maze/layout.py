"""The maze AgentGym's Maze server plays: LMRL-Gym's double-T maze, its 26 listed starts, its goal.

The last listed start is the goal itself, which LMRL-Gym's env refuses as a start (its server
answers game 25 with an error), so 25 games remain.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).parent / "data" / "double_t_maze.json"

Position = tuple[int, int]


@dataclass(frozen=True)
class Layout:
    name: str
    walls: frozenset[Position]
    goal: Position
    starts: tuple[Position, ...]
    max_moves: int

    def free(self, position: Position) -> bool:
        return position not in self.walls

    def playable_starts(self) -> tuple[Position, ...]:
        """The listed starts LMRL-Gym accepts: every one but the goal."""
        return tuple(s for s in self.starts if s != self.goal)


def load(path: Path = DATA) -> Layout:
    data = json.loads(path.read_text(encoding="utf-8"))
    walls = frozenset((r, c) for r, row in enumerate(data["grid"]) for c, cell in enumerate(row) if cell == 1)
    return Layout(
        name=data["name"],
        walls=walls,
        goal=(data["goal"][0], data["goal"][1]),
        starts=tuple((r, c) for r, c in data["starts"]),
        max_moves=int(data["max_moves"]),
    )
