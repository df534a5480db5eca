"""One Maze episode: LMRL-Gym's moves and AgentGym's server's observation text.

An action is one of "move up/down/left/right" (AgentGym's server appends the newline LMRL-Gym's
action names end in); a move into a wall, or any other text, leaves the position. The
observation names the goal, the position and the adjacent walls ("The goal is at position 8, 6.
Your current position is at position 1, 1. There are walls above you, below you."); reaching the
goal answers "Success\\n" (reward 1, done); after 50 moves that did not reach it the next step
answers "Failure\\n" (reward -1, done). Rows grow downwards, columns to the right.
"""

from __future__ import annotations

from dataclasses import dataclass

from coevo.envs.maze.layout import Layout, Position
from coevo.envs.maze.scoring import FAILURE_REWARD, SUCCESS_REWARD, STEP_REWARD

MOVES: dict[str, Position] = {"move left": (0, -1), "move right": (0, 1), "move up": (-1, 0), "move down": (1, 0)}
#: The walls around a position, in the order LMRL-Gym names them.
SIDES: dict[str, Position] = {
    "to your right": (0, 1),
    "to your left": (0, -1),
    "above you": (-1, 0),
    "below you": (1, 0),
}
SUCCESS = "Success\n"
FAILURE = "Failure\n"


def walls_text(sides: list[str]) -> str:
    if not sides:
        return "There are no walls near you."
    if len(sides) == 1:
        return f"There is a wall {sides[0]}."
    return f"There are walls {', '.join(sides)}."


@dataclass
class Game:
    layout: Layout
    position: Position
    moves: int = 0

    def describe(self) -> str:
        goal, (r, c) = self.layout.goal, self.position
        sides = [name for name, (dr, dc) in SIDES.items() if not self.layout.free((r + dr, c + dc))]
        return (
            f"The goal is at position {goal[0]}, {goal[1]}. Your current position is at position {r}, {c}. "
            + walls_text(sides)
        )

    def act(self, action: str) -> tuple[str, float, bool]:
        """(observation, reward, done) for one action, as the server reads it (`action + "\\n"`)."""
        if self.moves >= self.layout.max_moves:
            return FAILURE, FAILURE_REWARD, True
        delta = MOVES.get(action)
        if delta is not None:
            target = (self.position[0] + delta[0], self.position[1] + delta[1])
            if self.layout.free(target):
                self.position = target
        if self.position == self.layout.goal:
            return SUCCESS, SUCCESS_REWARD, True
        self.moves += 1
        return self.describe(), STEP_REWARD, False
