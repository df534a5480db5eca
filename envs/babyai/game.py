"""One BabyAI episode the way AgentGym's server plays it: text actions over a minigrid level.

A text action is looked up in the current view's action table (view.py) and its low-level
actions are taken one by one, stopping early when one leaves the observation unchanged (the
server's check that a step did something). An action not in the table is answered with the
view's message for it or "The action is not recognized. Please check valid actions.", an empty
one with "No change in state.", and any action containing "check" with the list of actions.
The reward and end rule are scoring.py's.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import minigrid  # noqa: F401  (registers the BabyAI levels with gymnasium)
import numpy as np

from coevo.envs.babyai import scoring
from coevo.envs.babyai.tasks import catalogue
from coevo.envs.babyai.view import View, describe

UNRECOGNIZED = "The action is not recognized. Please check valid actions."
NO_CHANGE = "No change in state."
COMPLETED = "\n The task is completed."


def make_level(level: str) -> Any:
    """The level as AgentGym's pins register it (tasks.py: `specs` for a registration minigrid
    has changed since)."""
    old = catalogue().specs.get(level)
    if old is None:
        return gymnasium.make(level, disable_env_checker=True)
    spec = gymnasium.envs.registration.EnvSpec(id=level, entry_point=old["entry_point"], kwargs=old["kwargs"])
    return gymnasium.make(spec, disable_env_checker=True)


def goal_text(mission: str) -> str:
    """The goal as AgentGym states it: its sequence words "then" and "after you" become "and"."""
    if "then" in mission:
        mission = mission.replace("then", "and")
    if "after you" in mission:
        mission = mission.replace("after you", "and")
    return mission


def actions_text(actions: list[str]) -> str:
    """The list AgentGym's server appends to every observation."""
    return "\nAvailable actions: [" + ", ".join(f'"{a}"' for a in actions) + "]"


def take_low_actions(env: Any, image: np.ndarray, low: list[int]) -> tuple[dict[str, Any], float, bool, list[int]]:
    """Take a text action's low-level actions on `env` (whose last observed image is `image`)
    the way AgentGym's server does: one by one, stopping after one that leaves the image
    unchanged. Returns the last observation, reward and termination, and the actions taken."""
    taken: list[int] = []
    obs: dict[str, Any] = {}
    reward, terminated = 0.0, False
    for a in low:
        obs, reward, terminated, _, _ = env.step(a)
        taken.append(a)
        if not (obs["image"] != image).any():
            break
        image = obs["image"]
    return obs, float(reward), bool(terminated), taken


class Game:
    """A minigrid level reset with a seed, with AgentGym's text view, actions and rewards."""

    def __init__(self, level: str, seed: int) -> None:
        self.level = level
        self.seed = seed
        self.env: Any = make_level(level)
        obs, _ = self.env.reset(seed=seed)
        self.goal = goal_text(self.env.unwrapped.mission)
        self.view: View = self._describe(obs)
        self.image: np.ndarray = obs["image"]
        self.state = self.view.description
        self.reward = 0.0
        self.done = False
        #: The level said the mission was done at some step (with any reward; `done` needs > 0.5).
        self.accomplished = False
        #: The low-level actions each executed text action took, in order (the expert's bot
        #: follows them; an action that took none is not listed).
        self.moves: list[list[int]] = []

    def _describe(self, obs: dict[str, Any]) -> View:
        return describe(self.env.unwrapped, obs["image"], int(obs["direction"]))

    @property
    def actions(self) -> list[str]:
        return list(self.view.actions)

    def step(self, action: str) -> str:
        """Take one text action; returns the new state text (also `self.state`)."""
        action = action.lower().strip()
        if "check" in action:
            self.state = "You can take the following actions: " + ", ".join(self.view.actions)
            return self.state
        if action == "":
            self.state = NO_CHANGE
            return self.state
        if action not in self.view.actions:
            self.state = self.view.errors.get(action, UNRECOGNIZED)
            return self.state
        low = self.view.actions[action]
        if not low:
            self.state = NO_CHANGE
            return self.state
        obs, reward, terminated, taken = take_low_actions(self.env, self.image, low)
        self.moves.append(taken)
        self.view = self._describe(obs)
        state = self.view.description
        if terminated:
            state += COMPLETED
        self.reward = float(reward)
        self.done = scoring.episode_done(bool(terminated), self.reward)
        self.accomplished = self.accomplished or bool(terminated)
        self.image = obs["image"]
        self.state = state
        return state

    def close(self) -> None:
        self.env.close()
