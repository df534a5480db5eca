"""Maze's tasks: AgentGym's games, the maze's playable starts in its server's order.

AgentGym's Maze server plays one maze (LMRL-Gym's double-T) from 26 listed starts, game i
starting at the i-th; the last is the goal, which LMRL-Gym refuses, so games 0-24 are the tasks
(`maze-<i>`). AgentGym evaluates on all 25 and trains on trajectories of the same maze; every
start of the maze is one of them, so a held-out split can only be some of the games: every fifth
(0, 5, 10, 15, 20) is `test`, the other 20 `train`. AgentGym's routes reach all 25 by index.
"""

from __future__ import annotations

PREFIX = "maze-"
TEST_EVERY = 5


def split_of(game: int) -> str:
    return "test" if game % TEST_EVERY == 0 else "train"


def task_id(game: int) -> str:
    return f"{PREFIX}{game}"


def game_of(task: str, games: int) -> int | None:
    number = task.removeprefix(PREFIX)
    if number == task or not (number.isascii() and number.isdigit()) or (len(number) > 1 and number[0] == "0"):
        return None
    game = int(number)
    return game if game < games else None
