"""The shortest path: breadth-first search from the position to the goal, first move of it."""

from __future__ import annotations

from collections import deque

from coevo.envs.maze.game import MOVES
from coevo.envs.maze.layout import Layout, Position


def next_move(layout: Layout, position: Position) -> str | None:
    """The first move of a shortest path (moves tried in MOVES' order), or None when the goal
    cannot be reached (or is reached)."""
    if position == layout.goal:
        return None
    first: dict[Position, str | None] = {position: None}
    queue = deque([position])
    while queue:
        here = queue.popleft()
        for name, (dr, dc) in MOVES.items():
            there = (here[0] + dr, here[1] + dc)
            if there in first or not layout.free(there):
                continue
            first[there] = first[here] or name
            if there == layout.goal:
                return first[there]
            queue.append(there)
    return None


def path_length(layout: Layout, start: Position) -> int | None:
    """Moves on a shortest path from `start` to the goal."""
    position, moves = start, 0
    while position != layout.goal:
        move = next_move(layout, position)
        if move is None:
            return None
        dr, dc = MOVES[move]
        position, moves = (position[0] + dr, position[1] + dc), moves + 1
    return moves
