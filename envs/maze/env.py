"""Maze env: LMRL-Gym's double-T maze as AgentGym's LMRL-Gym server serves it.

Move from one of the maze's starts to its goal with "move up/down/left/right"; each observation
names the goal, the position and the adjacent walls (envs/maze/game.py). Reward 1 and done on
reaching the goal; after 50 moves that did not, the next step fails (reward -1, done). Tasks are
AgentGym's 25 games (`maze-<i>`; every fifth held out, envs/maze/tasks.py). The native routes and AgentGym's send the
same text; the rules of the task are in the agent prompt (AgentGym's client writes its own).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from coevo.envs.base import Env, ResetResult, StepResult, UnknownTask
from coevo.envs.maze import agentgym, expert, layout, tasks
from coevo.envs.maze.game import MOVES, Game
from coevo.wire import AgentPrompt

ACTIONS = list(MOVES)


class MazeEnv(Env):
    name = "maze"
    version = "1"
    action_format = "move up | move down | move left | move right"
    action_example = ("There is a wall to my right and the goal is below me, so I go down.", "move down")
    agent_prompt = AgentPrompt.from_file(Path(__file__).parent / "data" / "agent_prompt.json")
    agentgym_profile = agentgym.PROFILE
    max_steps = 51  # 50 moves, then the step that fails
    default_split = "train"
    heldout_splits = ("test",)
    cpu_heavy = False

    @classmethod
    def load_shared(cls, **_: Any) -> layout.Layout:
        return layout.load()

    def __init__(self, shared: layout.Layout | None = None, **options: Any) -> None:
        super().__init__(shared, **options)
        self.game: Game | None = None

    # --------------------------------------------------------------- catalogue
    def _games(self, split: str) -> list[int]:
        return [g for g in range(len(self.shared.playable_starts())) if tasks.split_of(g) == split]

    def splits(self) -> Mapping[str, int]:
        return {split: len(self._games(split)) for split in ("train", "test")}

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        games = self._games(split)
        stop = len(games) if limit is None else offset + limit
        return [tasks.task_id(g) for g in games[offset:stop]]

    def _game(self, task_id: str) -> int:
        games = len(self.shared.playable_starts())
        game = tasks.game_of(task_id, games)
        if game is None:
            raise UnknownTask(f"unknown task id {task_id!r}; tasks are maze-0 .. maze-{games - 1}")
        return game

    def split_of(self, task_id: str) -> str:
        return tasks.split_of(self._game(task_id))

    def task_for_index(self, index: int) -> str:
        """AgentGym's game `index`: task maze-<index>, whatever its split."""
        if not 0 <= index < len(self.shared.playable_starts()):
            raise UnknownTask(f"game {index} is not one of the maze's {len(self.shared.playable_starts())} games")
        return tasks.task_id(index)

    def describe_task(self, task_id: str) -> dict[str, Any]:
        start = self.shared.playable_starts()[self._game(task_id)]
        return {
            "start": list(start),
            "goal": list(self.shared.goal),
            "shortest": expert.path_length(self.shared, start),
        }

    # --------------------------------------------------------------- episode
    def _reset(self, task_id: str, seed: int) -> ResetResult:
        self.game = Game(self.shared, self.shared.playable_starts()[self._game(task_id)])
        return ResetResult(self.game.describe(), {"task": "reach the goal", "available_actions": ACTIONS})

    def _step(self, action: str) -> StepResult:
        assert self.game is not None
        observation, reward, done = self.game.act(action)
        info = {"valid": action in MOVES, "available_actions": ACTIONS}
        return StepResult(observation, reward, done, info=info)

    # --------------------------------------------------------------- expert
    def expert_action(self) -> str | None:
        if self.game is None or self.done:
            return None
        return expert.next_move(self.shared, self.game.position)
