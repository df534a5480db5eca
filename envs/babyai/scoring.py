"""The reward and end rule of AgentGym's BabyAI server.

The reward is minigrid's: 0 until the mission is accomplished, then `1 - 0.9 * steps /
max_steps`, counting the level's low-level steps. It stays what the last executed action gave
(an action that could not be taken leaves it as it was). The episode ends when the level says
the mission is done *and* that reward is above 0.5: a mission accomplished too slowly does not
end the episode (AgentGym's server "in case the model finds a way to skip a step"). Its score,
what AgentGym's client reports as the reward, is the sum of the rewards after each step.
"""

from __future__ import annotations

#: A finished mission ends the episode only with a reward above this.
DONE_REWARD = 0.5


def episode_done(terminated: bool, reward: float) -> bool:
    """AgentGym's end rule: the level's termination with a reward above DONE_REWARD."""
    return terminated and reward > DONE_REWARD
