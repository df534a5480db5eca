"""BabyAI env: AgentGym's text version of BabyAI's grid-world levels (minigrid).

An episode is one AgentGym item: a BabyAI level reset with a seed (tasks.py). The observation
is AgentGym's: the goal, what the agent sees in front of it, and the text actions it may take
now (view.py); an action is one of them, each a path of minigrid's low-level actions (game.py).
Rewards and the end are AgentGym's (scoring.py). Native and AgentGym sessions see the same text;
the AgentGym routes add the server's fields (agentgym.py). The expert is BabyAI's bot
(expert.py). Options: none (the levels come with minigrid; nothing is downloaded).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from coevo.envs.babyai import agentgym
from coevo.envs.babyai.expert import Expert
from coevo.envs.babyai.game import Game, actions_text
from coevo.envs.babyai.tasks import Catalogue, catalogue, parse_task_id, task_id
from coevo.envs.base import Env, ResetResult, StepResult, UnknownTask
from coevo.wire import AgentPrompt


class BabyAIEnv(Env):
    name = "babyai"
    version = "1"
    action_format = "one of the available actions, e.g. `go to red ball 1`, `pickup blue key 1`, `turn left`"
    action_example = (
        "The red ball I must reach is 2 steps in front of me, so I walk to it.",
        "go to red ball 1",
    )
    #: AgentGym's server has no step cap (its wrapper's max_episode_steps=50 is unused); ours
    #: keeps its own cap; the expert plays AgentGym's macro actions, within it on every level it solves.
    max_steps = 100
    default_split = "train"
    heldout_splits = ("test",)
    cpu_heavy = False
    agent_prompt = AgentPrompt.from_file(Path(__file__).parent / "data" / "agent_prompt.json")
    agentgym_profile = agentgym.PROFILE

    @classmethod
    def load_shared(cls, **_: Any) -> Catalogue:
        return catalogue()

    def __init__(self, shared: Catalogue | None = None, **options: Any) -> None:
        super().__init__(shared, **options)
        self.game: Game | None = None
        self.score = 0.0
        self._expert: Expert | None = None

    # --------------------------------------------------------------- catalogue
    def splits(self) -> Mapping[str, int]:
        return {split: stop - start for split, (start, stop) in self.shared.splits.items()}

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        start, stop = self.shared.splits.get(split, (0, 0))
        first = start + max(offset, 0)
        last = stop if limit is None else min(stop, first + limit)
        return [task_id(i) for i in range(first, last)]

    def split_of(self, task_id: str) -> str:
        return self.shared.split_of(parse_task_id(task_id))

    def describe_task(self, task_id: str) -> dict[str, Any]:
        task = self.shared.task(parse_task_id(task_id))
        return {"task_type": task.level, "level": task.level, "level_seed": task.seed}

    # --------------------------------------------------------------- episode
    def observation_with_goal(self) -> str | None:
        """The goal line, the latest state and the actions: AgentGym's reset and /observation text."""
        if self.game is None:
            return None
        game = self.game
        return f"Your goal: {game.goal}\n{game.state}{actions_text(game.actions)}"

    def _reset(self, task_id: str, seed: int) -> ResetResult:
        task = self.shared.task(parse_task_id(task_id))
        self.close()
        try:
            self.game = Game(task.level, task.seed)
        except Exception as exc:  # a level name minigrid does not know
            raise UnknownTask(f"{task_id}: level {task.level!r} cannot be made: {exc}") from None
        self.score = 0.0
        observation = self.observation_with_goal() or ""
        info = {"task": self.game.goal, "level": task.level, "available_actions": self.game.actions}
        return ResetResult(observation, info)

    def _step(self, action: str) -> StepResult:
        game = self.game
        assert game is not None
        state = game.step(action)
        self.score += game.reward
        info = {"available_actions": game.actions, "score": self.score, "success": game.done}
        return StepResult(state + actions_text(game.actions), game.reward, game.done, info=info)

    # --------------------------------------------------------------- expert
    def expert_action(self) -> str | None:
        if self.game is None or self.done:
            return None
        if self._expert is None or self._expert.game is not self.game:
            self._expert = Expert(self.game)
        return self._expert.next_action()

    def close(self) -> None:
        if self._expert is not None:
            self._expert.close()
            self._expert = None
        if self.game is not None:
            self.game.close()
            self.game = None
