"""The reward: ScienceWorld's score, as its Python API and AgentGym's server report it.

The simulator keeps a task score in [0, 1] (negative once the task has failed); the API reports
it as a whole percentage and each step's reward as the change since the last step. An episode
ends when the task is completed, when the score turns negative, or after more moves than the
step limit (100, the API's default, which AgentGym's server keeps). coevo's per-step reward is
that change over 100, so an episode's return is its final score over 100 (AgentGym's clients
read the score itself).
"""

from __future__ import annotations

#: The Python API's default `envStepLimit`, which AgentGym's server uses.
STEP_LIMIT = 100


def percent(raw: float) -> int:
    """The score as the API reports it: round(100 * the simulator's score)."""
    return int(round(100 * raw))


def episode_over(score: int, completed: bool, moves: int, step_limit: int = STEP_LIMIT) -> bool:
    """The API's done rule: completed, failed (negative score), or past the step limit."""
    return completed or score < 0 or moves > step_limit


def reward(score: int, previous: int) -> float:
    """coevo's reward for a step: the change of score, as a fraction."""
    return (score - previous) / 100
