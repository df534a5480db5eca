"""Maze's tasks: AgentGym's games, the maze's playable starts in its server's order.

AgentGym's Maze server plays one maze (LMRL-Gym's double-T) from 26 listed starts, game i
starting at the i-th; the last is the goal, which LMRL-Gym refuses, so games 0-24 are the tasks
(`maze-<i>`). AgentGym evaluates on 25 Maze tasks and trains on trajectories of the same maze,
so there is one split, `test`, which is not held out: training draws from it too.
"""

from __future__ import annotations

PREFIX = "maze-"


def task_id(game: int) -> str:
    return f"{PREFIX}{game}"


def game_of(task: str, games: int) -> int | None:
    number = task.removeprefix(PREFIX)
    if number == task or not (number.isascii() and number.isdigit()) or (len(number) > 1 and number[0] == "0"):
        return None
    game = int(number)
    return game if game < games else None
