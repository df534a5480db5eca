"""TextCraft env: craft a Minecraft item with the recipes shown, as AgentGym's server serves it.

The first observation lists crafting commands and the goal ("Crafting commands:\\n...\\n\\nGoal:
craft X."); actions are `get N item`, `craft N item using N a, N b` and `inventory`
(envs/textcraft/game.py), with the server's own texts for what it refuses. Reward 1 and done on
the step that crafts the goal. Tasks are AgentGym's 544, by index (`textcraft-<i>`,
envs/textcraft/tasks.py). The native routes and AgentGym's send the same text; only AgentGym's
routes take steps after the goal (its server keeps no end state, envs/textcraft/agentgym.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coevo.envs.base import Env, ResetResult, StepResult, UnknownTask
from coevo.envs.textcraft import agentgym, expert, tasks
from coevo.envs.textcraft.tasks import Task
from coevo.envs.textcraft.crafting import CraftingTree, display_name
from coevo.envs.textcraft.game import Game
from coevo.wire import AgentPrompt


@dataclass(frozen=True)
class Shared:
    tree: CraftingTree
    tasks: tuple[Task, ...]
    by_split: dict[str, tuple[Task, ...]]
    planner: expert.Planner


class TextCraftEnv(Env):
    name = "textcraft"
    version = "1"
    action_format = "get N item | craft N item using N ingredient, N ingredient | inventory"
    action_example = (
        "The recipe needs one oak log and I carry none, so I get it first.",
        "get 1 oak log",
    )
    agent_prompt = AgentPrompt.from_file(Path(__file__).parent / "data" / "agent_prompt.json")
    agentgym_profile = agentgym.PROFILE
    max_steps = 50
    default_split = "train"
    heldout_splits = ("test",)
    cpu_heavy = False

    @classmethod
    def load_shared(cls, **_: Any) -> Shared:
        tree = CraftingTree.load()
        loaded = tuple(tasks.load())
        by_split = {split: tuple(t for t in loaded if t.split == split) for split in ("train", "test")}
        return Shared(tree, loaded, by_split, expert.Planner(tree))

    def __init__(self, shared: Shared | None = None, **options: Any) -> None:
        super().__init__(shared, **options)
        self.task: Task | None = None
        self.game: Game | None = None

    # --------------------------------------------------------------- catalogue
    def splits(self) -> Mapping[str, int]:
        return {split: len(ts) for split, ts in self.shared.by_split.items()}

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        ts = self.shared.by_split.get(split, ())
        stop = len(ts) if limit is None else offset + limit
        return [t.task_id for t in ts[offset:stop]]

    def _task(self, task_id: str) -> Task:
        index = tasks.index_of(task_id)
        if index is None or index >= len(self.shared.tasks):
            raise UnknownTask(
                f"unknown task id {task_id!r}; tasks are textcraft-0 .. textcraft-{len(self.shared.tasks) - 1}"
            )
        return self.shared.tasks[index]

    def split_of(self, task_id: str) -> str:
        return self._task(task_id).split

    def describe_task(self, task_id: str) -> dict[str, Any]:
        task = self._task(task_id)
        return {"goal": task.goal, "depth": task.depth, "agentgym_index": task.index}

    def task_for_index(self, index: int) -> str:
        """The task AgentGym's index names. Its server wraps every index around its 544 tasks
        (`data_idx % 544`); ours refuses one past them (404), as for every env's indices."""
        if not 0 <= index < len(self.shared.tasks):
            raise UnknownTask(f"task index {index} is out of range (TextCraft has {len(self.shared.tasks)} tasks)")
        return self.shared.tasks[index].task_id

    # --------------------------------------------------------------- episode
    def _reset(self, task_id: str, seed: int) -> ResetResult:
        self.task = self._task(task_id)
        self.game = Game(self.shared.tree, self.task.goal)
        return ResetResult(
            self.task.observation(), {"task": f"craft {display_name(self.task.goal)}", "depth": self.task.depth}
        )

    def _step(self, action: str) -> StepResult:
        assert self.game is not None
        outcome = self.game.act(action)
        return StepResult(outcome.observation, outcome.reward, outcome.done, info={"valid": not outcome.failed})

    # --------------------------------------------------------------- expert
    def expert_action(self) -> str | None:
        if self.game is None or self.done:
            return None
        return expert.next_action(self.shared.planner, self.game.goal, self.game.inventory)
