"""SciWorld as AgentGym's server presents it (`agentenv-sciworld`), for its routes.

Its games are indexed in its own order (envs/sciworld/tasks.py: every variation of each task it
keeps, tasks in ScienceWorld's order), not by split. Its /reset loads the game, reads the task
description, takes "look around" and answers `task_name`, `var_num`, `task_description`,
`observation` (the look alone: its client puts the description before it), `reward`, `score`,
`deleted` and `done`; its /step adds `score` (the percentage, which its client reports as the
step's reward) to the observation, reward (the change of score in points) and done. A finished
episode is answered with HTTP 200 and `{"error": "The task with environment <id> has finished."}`.
`PROFILE` declares that for the AgentGym routes (envs/agentgym.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile
from coevo.envs.base import UnknownTask
from coevo.envs.sciworld import tasks

if TYPE_CHECKING:
    from coevo.envs.sciworld.env import SciWorldEnv

FINISHED = "The task with environment {id} has finished."


class SciWorldAgentGym(AgentGymAdapter[Any]):
    """AgentGym's game order, and the fields its /reset and /step add."""

    env: SciWorldEnv

    def task(self, index: int) -> str:
        games = tasks.load().games
        if not 0 <= index < len(games):
            raise UnknownTask(f"task index {index} is out of range (AgentGym's SciWorld has {len(games)} games)")
        return games[index].task_id

    def reset_fields(self) -> dict[str, Any]:
        state = self.env.state
        if state is None:
            return {}
        return {
            "task_name": state.game.task,
            "var_num": state.game.variation,
            "task_description": state.task_description,
            "reward": state.last.reward,
            "score": state.last.score,
            "deleted": False,
            "done": state.last.done,
        }

    def step_fields(self) -> dict[str, Any]:
        state = self.env.state
        if state is None:
            return {}
        # AgentGym's `reward` is the change of score in points; coevo's is that over 100.
        return {"reward": state.last.reward, "score": state.last.score}


#: AgentGym's SciWorld server: id style, exactly its fields, its hello and finished message.
PROFILE = AgentGymProfile(
    style="id",
    hello="This is environment ScienceWorld.",
    extra_fields=False,
    finished_error=FINISHED,
    adapter=SciWorldAgentGym,
)
