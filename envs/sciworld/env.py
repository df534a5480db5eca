"""SciWorld: ScienceWorld's science-experiment tasks on the real simulator (AgentGym's SciWorld).

The `scienceworld` package's jar runs in one JVM per process (envs/sciworld/jvm.py); each session
loads its (task, variation) there as AgentGym's server does: load, read the task description,
take "look around". Actions are the simulator's own command grammar, sent as typed; text it does
not parse gets its own answer ("No known action matches that input."), an observation like any
other. Reward: the change of ScienceWorld's score over 100 (envs/sciworld/scoring.py); the episode
ends when the task is completed or failed, or after 100 moves. The expert follows the
simulator's gold path (envs/sciworld/expert.py).

A JVM that dies is started again, and a session that lived in it is rebuilt by replaying its
actions (the simulator is deterministic per task and variation) before its next step.

Options: `heap_mb` (the JVM's heap cap, default 4096: about 350 live sessions; docs/sciworld.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coevo.envs.base import Env, ResetResult, StepResult, UnknownTask
from coevo.envs.sciworld import agentgym, expert, tasks
from coevo.envs.sciworld.jvm import JvmDied, SharedJvm
from coevo.envs.sciworld.scoring import reward
from coevo.envs.sciworld.simulator import Episode, Outcome
from coevo.wire import AgentPrompt

OPENING = "look around"


@dataclass
class Shared:
    catalogue: tasks.Catalogue
    jvm: SharedJvm
    gold: expert.GoldPaths = field(default_factory=expert.GoldPaths)


@dataclass
class EpisodeState:
    game: tasks.Game
    task_description: str
    episode: Episode
    last: Outcome


class SciWorldEnv(Env):
    name = "sciworld"
    version = "1"
    action_format = "one ScienceWorld command, e.g. open door to kitchen, focus on water, wait1"
    action_example = ("The water is in the kitchen, so I open the door to it first.", "open door to kitchen")
    agent_prompt = AgentPrompt.from_file(Path(__file__).parent / "data" / "agent_prompt.json")
    agentgym_profile = agentgym.PROFILE
    max_steps = 100
    default_split = "train"
    heldout_splits = ("test", "dev")
    train_split = "train"
    cpu_heavy = True

    def __init__(self, shared: Shared | None = None, **options: Any) -> None:
        super().__init__(shared, **options)
        self.state: EpisodeState | None = None
        #: Per action taken: whether the simulator rejected it (the expert passes those over).
        self.rejected: list[bool] = []

    @classmethod
    def load_shared(cls, heap_mb: int = 4096, **_: Any) -> Shared:
        jvm = SharedJvm(heap_mb=int(heap_mb))
        jvm.warm_up()  # 1-5 s: before a server answers /health, not in its first session
        shared = Shared(tasks.load(), jvm)
        shared.gold.prepare()  # the expert's gold-path JVM, started in the background
        return shared

    # ----------------------------------------------------------------- catalogue
    def splits(self) -> Mapping[str, int]:
        return {split: len(ids) for split, ids in self.shared.catalogue.by_split.items()}

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        ids = self.shared.catalogue.by_split.get(split, ())
        return ids[offset : None if limit is None else offset + limit]

    def split_of(self, task_id: str) -> str:
        try:
            return str(self.shared.catalogue.split_of[task_id])
        except KeyError:
            raise UnknownTask(f"unknown task id {task_id!r} (e.g. 'boil-var0')") from None

    def describe_task(self, task_id: str) -> dict[str, Any]:
        game = self.shared.catalogue.by_id[task_id]
        return {"task": game.task, "task_number": game.key, "variation": game.variation}

    # ----------------------------------------------------------------- episode
    def _load(self, game: tasks.Game) -> EpisodeState:
        """Load `game` as AgentGym's server does; a JVM that dies meanwhile is started again once."""
        for attempt in (0, 1):
            try:
                episode = Episode(self.shared.jvm, game.task, game.variation)
                description = episode.task_description()
                return EpisodeState(game, description, episode, episode.step(OPENING))
            except JvmDied:
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def _reset(self, task_id: str, seed: int) -> ResetResult:
        game = self.shared.catalogue.by_id[task_id]
        self.close()
        self.state = state = self._load(game)
        self.rejected = []
        # AgentGym's /reset sends the look alone (its client prepends the description itself).
        text = state.last.observation if self.agentgym else f"{state.task_description}\n{state.last.observation}"
        return ResetResult(text, {"task": state.task_description, "score": state.last.score})

    def _replay(self) -> Outcome:
        """Rebuild the episode in a fresh simulator by replaying every action taken so far."""
        assert self.state is not None
        state = self._load(self.state.game)
        for action in self.actions:
            state.last = state.episode.step(action)
        self.state = state
        return state.last

    def _step(self, action: str) -> StepResult:
        assert self.state is not None
        previous = self.state.last.score
        try:
            outcome = self.state.episode.step(action)
        except JvmDied:
            previous = self._replay().score
            outcome = self.state.episode.step(action)
        self.state.last = outcome
        self.rejected.append(outcome.observation == expert.REJECTED)
        # ScienceWorld's verdict: the task is complete at a score of 100. The reward is the change
        # of score, so a last step's reward alone cannot say it.
        info = {"score": outcome.score, "moves": outcome.moves, "success": outcome.score >= 100}
        return StepResult(outcome.observation, reward(outcome.score, previous), outcome.done, info=info)

    def expert_action(self) -> str | None:
        if self.state is None or self.done:
            return None
        gold = self.shared.gold.get(self.state.game)
        return expert.next_action(gold, self.actions, self.rejected)

    def close(self) -> None:
        self.state = None  # the simulator object is collected in the JVM with its proxy
