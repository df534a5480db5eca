"""The expert: BabyAI's own bot (minigrid's `BabyAIBot`) translated into AgentGym's text actions.

The bot plans low-level actions from the level's full state (privileged: the grid, the
instruction's structure). It runs on a replica of the episode's level, reset with the same
seed and given every low-level action the episode took, so it sees what the agent saw whatever
actions (macro or single) got it there. Its next low-level action becomes the text action that
takes exactly it: "turn left", "turn right", "move forward", "drop", "toggle" (a door right in
front), "pickup <the object in front>". Where none exists the expert has no action: AgentGym's
table cannot open a box (KeyInBox hides the key in one) or toggle anything but a door in front.
"""

from __future__ import annotations

from typing import Any

from minigrid.utils.baby_ai_bot import BabyAIBot

from coevo.envs.babyai.game import Game, make_level
from coevo.envs.babyai.view import DROP, FORWARD, LEFT, PICKUP, RIGHT, TOGGLE


#: minigrid's low-level actions by number.
MOVES = ("left", "right", "forward", "pickup", "drop", "toggle", "done")


class Expert:
    """The bot on a replica of one episode's level, kept in step with the episode."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.env: Any = make_level(game.level)
        self.env.reset(seed=game.seed)
        self.bot = BabyAIBot(self.env.unwrapped)
        self.synced = 0  # low-level actions the replica has taken
        self.planned = -1  # the replica state (by `synced`) the bot last planned in
        self.previous: int | None = None
        self.suggestion: int | None = None
        #: Why the last `next_action` had no action (for bench/babyai.py's list), else None.
        self.failure: str | None = None

    def next_low_action(self) -> int | None:
        """The bot's next low-level action in the episode's current state."""
        low = self.game.low_actions
        try:
            while self.synced < len(low):
                if self.planned != self.synced:
                    self.bot.replan(self.previous)
                action = low[self.synced]
                self.env.step(action)
                self.previous, self.synced = action, self.synced + 1
            if self.planned != self.synced:
                self.suggestion = int(self.bot.replan(self.previous))
                self.planned = self.synced
        except Exception as exc:  # the bot gives up (e.g. nothing left to explore): no expert action
            self.failure = f"BabyAI's bot failed: {type(exc).__name__} {exc}".strip()
            return None
        return self.suggestion

    def next_action(self) -> str | None:
        """The text action that takes the bot's next low-level action, or None (`failure` says why)."""
        self.failure = None
        low = self.next_low_action()
        if low is None:
            return None
        action = self._text_action(low)
        if action is None:
            move = MOVES[low] if 0 <= low < len(MOVES) else str(low)
            self.failure = f"the bot's next move is {move!r}, which no available text action makes"
        return action

    def _text_action(self, low: int) -> str | None:
        table = self.game.view.actions
        if low == LEFT:
            return "turn left"
        if low == RIGHT:
            return "turn right"
        if low == FORWARD:
            return "move forward" if "move forward" in table else None
        if low == DROP:
            return "drop" if "drop" in table else None
        if low == TOGGLE:
            return "toggle" if "toggle" in table else None
        if low == PICKUP:
            return next((a for a, steps in table.items() if a.startswith("pickup ") and steps == [PICKUP]), None)
        return None  # "done": the bot thinks the mission is accomplished

    def close(self) -> None:
        self.env.close()
