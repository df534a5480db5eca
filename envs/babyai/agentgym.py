"""BabyAI as AgentGym's BabyAI server (`agentenv-babyai`) answers on its routes.

Its `/create` answers `{"id"}`; `/reset {id, data_idx}` answers `{observation, reward, score,
deleted, done}`, the observation being "Your goal: <goal>\\n<view>" and the list of available
actions; `/step {id, action}` answers `{observation, reward, score, done}`, where `reward` is
the level's current reward and `score` the sum of the rewards after each step (what its client
reports as the reward). `/observation` repeats the goal line before the latest state. A
finished episode's `/step` and `/observation` are answered with HTTP 200 and `{"error": "The
task with environment <id> has finished."}`. `GET /` answers "This is environment BabyAI.".
Items 0-89 are the test split, 90-899 the train split (tasks.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile
from coevo.envs.babyai.tasks import catalogue

if TYPE_CHECKING:
    from coevo.envs.babyai.env import BabyAIEnv


class BabyAIAgentGym(AgentGymAdapter[Any]):
    """The fields AgentGym's BabyAI server adds: the reward, the score and `deleted`."""

    env: BabyAIEnv

    def reset_fields(self) -> dict[str, Any]:
        game = self.env.game
        reward = game.reward if game else 0.0
        return {"reward": reward, "score": reward, "deleted": False, "done": bool(game and game.done)}

    def step_fields(self) -> dict[str, Any]:
        return {"score": self.env.score}

    def observation(self) -> str | None:
        return self.env.observation_with_goal()


PROFILE = AgentGymProfile(
    style="id",
    indices=tuple((split, start) for split, (start, _) in sorted(catalogue().splits.items(), key=lambda s: s[1][0])),
    hello="This is environment BabyAI.",
    extra_fields=False,
    finished_error="The task with environment {id} has finished.",
    adapter=BabyAIAgentGym,
)
