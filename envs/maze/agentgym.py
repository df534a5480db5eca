"""Maze as AgentGym's LMRL-Gym server (`agentenv-lmrlgym`, under /maze/) answers.

Id style: /create answers `{"id"}` (no episode: its client resets at once), /reset takes
`{"id", "game"}` (one of the maze's starts) and answers `{"observation"}`, /step answers
`{"observation", "reward", "done"}`. After the end its server answers /step, /observation and
/detail with 200 and `{"error": "The task with environment <id> has finished."}`. `GET /`
answers "This is environment LMRL-Gym.". Its routes live under /maze/, ours at the server's root.
Game 25 (its start is the goal) and games past it are refused with 404 (its server: 200 and an
`{"error"}`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile

if TYPE_CHECKING:
    from coevo.envs.maze.env import MazeEnv


class MazeAgentGym(AgentGymAdapter[Any]):
    """AgentGym's games: game i is task maze-i, in whichever of our splits it is."""

    env: MazeEnv

    def task(self, index: int) -> str:
        return self.env.task_for_index(index)


#: AgentGym's LMRL-Gym server, its /maze/ routes.
PROFILE = AgentGymProfile(
    style="id",
    hello="This is environment LMRL-Gym.",
    finished_error="The task with environment {id} has finished.",
    adapter=MazeAgentGym,
)
