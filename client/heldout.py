"""Held-out evaluation: a policy scored on fixed task lists of the envs' evaluation splits, with
the number of tasks and a 95% confidence interval on every row.

The task list of a split is drawn once by a seeded RNG (the same seed, env and split give the
same tasks on any machine), so every arm and every stage of a run is scored on the very same
tasks, and two policies can be compared task by task (stats.paired_comparison). Everything
runs over HTTP through the rollout engine; the envs say which of their splits are held out
(`/info` heldout_splits), and trainers refuse to train on them.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from coevo.client.evaluation import TaskRef, rollout_tasks
from coevo.client.http import AsyncEnvClient
from coevo.client.policies.base import Policy, Sampling
from coevo.client.policies.prompts import EnvPrompt
from coevo.client.stats import wilson_interval
from coevo.client.trajectory import Trajectory


@dataclass(frozen=True)
class HeldoutSplit:
    """`n` tasks of one evaluation split (n = 0: every task of it)."""

    env: str
    split: str
    n: int

    @classmethod
    def parse(cls, text: str, default_n: int) -> HeldoutSplit:
        """ENV:SPLIT[:N], e.g. "myenv:test:100"."""
        parts = text.split(":")
        if len(parts) not in (2, 3) or not all(parts):
            raise ValueError(f"held-out split {text!r} is not ENV:SPLIT[:N]")
        n = int(parts[2]) if len(parts) == 3 else default_n
        if n < 0:
            raise ValueError(f"held-out split {text!r}: N must be >= 0")
        return cls(parts[0], parts[1], n)


@dataclass
class HeldoutRow:
    """One policy on one held-out task list."""

    env: str
    split: str
    n: int
    success_rate: float
    ci95_low: float
    ci95_high: float
    mean_reward: float
    #: Success (1.0 / 0.0) per task, in the order of the task list: for paired comparisons.
    outcomes: list[float] = field(default_factory=list)
    #: Episodes played again because they ended without a verdict, by their end status
    #: (coevo.end_status): counted here, never scored.
    replayed: dict[str, int] = field(default_factory=dict)

    def metrics(self) -> dict[str, Any]:
        """The row without per-task outcomes (what metrics.jsonl carries)."""
        row = asdict(self)
        row.pop("outcomes")
        return row


def pooled_outcomes(rows: Sequence[HeldoutRow]) -> list[float]:
    """Per-task outcomes of several splits as one task list, in row order (the same order for
    every policy scored on the same lists, so two such lists pair task by task)."""
    return [o for row in rows for o in row.outcomes]


def task_indices(total: int, n: int, seed: int, env: str, split: str) -> list[int]:
    """The seeded choice of n task indices of a split of `total` tasks (all of them when n is 0
    or at least total), in increasing order."""
    if n <= 0 or n >= total:
        return list(range(total))
    return sorted(random.Random(f"{seed}:{env}:{split}").sample(range(total), n))


async def heldout_tasks(client: AsyncEnvClient, wanted: HeldoutSplit, seed: int) -> list[TaskRef]:
    """The fixed task list of one held-out split. Refuses a split the server does not list as
    held out: scores on training tasks are not held-out scores."""
    info = await client.info()
    if wanted.split not in info.splits:
        raise ValueError(f"{wanted.env} has no split {wanted.split!r}; it has {sorted(info.splits)}")
    if wanted.split not in info.heldout_splits:
        raise ValueError(
            f"{wanted.env}'s split {wanted.split!r} is not held out (held-out splits: {info.heldout_splits})"
        )
    indices = task_indices(info.splits[wanted.split], wanted.n, seed, wanted.env, wanted.split)

    async def one(index: int) -> TaskRef:
        page = await client.tasks(wanted.split, offset=index, limit=1)
        entry = page.tasks[0]
        return TaskRef(wanted.env, entry.task_id, entry.split, entry.meta)

    return list(await asyncio.gather(*(one(i) for i in indices)))


def score(wanted: HeldoutSplit, tasks: Sequence[TaskRef], trajectories: Sequence[Trajectory]) -> HeldoutRow:
    """The row of one split: per-task success in task-list order, its rate and Wilson interval."""
    by_task = {(t.env, t.task_id): t for t in trajectories}
    outcomes, rewards = [], []
    for task in tasks:
        played = by_task.get((task.env, task.task_id))
        if played is not None and not played.scored:
            raise UnscoredEpisode(
                f"{task.env} task {task.task_id} ended {played.status} ({played.error}): a held-out score never "
                "counts an episode the env did not judge"
            )
        outcomes.append(1.0 if played is not None and played.success else 0.0)
        rewards.append(played.reward if played is not None else 0.0)
    n = len(tasks)
    low, high = wilson_interval(int(sum(outcomes)), n)
    return HeldoutRow(
        env=wanted.env, split=wanted.split, n=n, success_rate=sum(outcomes) / n, ci95_low=low, ci95_high=high,
        mean_reward=sum(rewards) / n, outcomes=outcomes,
    )  # fmt: skip


class UnscoredEpisode(RuntimeError):
    """A held-out episode still had no verdict after its retries (coevo.end_status): its task
    can be neither scored as a failure nor dropped from a list that pairs task by task."""


class HeldoutEvaluator:
    """Scores policies on fixed held-out task lists; the lists are drawn on first use and kept,
    so every later call (another stage, another arm) sees the same tasks."""

    def __init__(
        self,
        clients: Mapping[str, Sequence[AsyncEnvClient]],
        splits: Sequence[HeldoutSplit],
        *,
        seed: int = 0,
        max_rounds: int | Mapping[str, int] | None = None,
        concurrency: int = 32,
        retries: int = 2,
    ) -> None:
        missing = {s.env for s in splits} - set(clients)
        if missing:
            raise ValueError(f"no server for held-out env(s) {sorted(missing)}")
        self.clients, self.splits, self.seed = clients, list(splits), seed
        self.max_rounds, self.concurrency = max_rounds, concurrency
        #: Times an unscored episode (an env, policy or transport error) is played again.
        self.retries = retries
        self._tasks: dict[HeldoutSplit, list[TaskRef]] = {}

    async def task_lists(self) -> dict[HeldoutSplit, list[TaskRef]]:
        for wanted in self.splits:
            if wanted not in self._tasks:
                self._tasks[wanted] = await heldout_tasks(self.clients[wanted.env][0], wanted, self.seed)
        return self._tasks

    async def evaluate(
        self,
        policy: Policy,
        *,
        sampling: Sampling | None = None,
        prompt_options: Mapping[str, Any] | None = None,
        prompts: Mapping[str, EnvPrompt] | None = None,
        on_done: Callable[[Trajectory], Any] | None = None,
    ) -> list[HeldoutRow]:
        """One row per held-out split; every split's episodes run together (one batch stream).
        `prompts` replace envs' own prompts (see rollout_tasks)."""
        lists = await self.task_lists()
        everything = [task for tasks in lists.values() for task in tasks]
        options: dict[str, Any] = dict(
            seed=self.seed, max_rounds=self.max_rounds, concurrency=self.concurrency, sampling=sampling,
            prompt_options=prompt_options, prompts=prompts, on_done=on_done,
        )  # fmt: skip
        trajectories = await rollout_tasks(policy, self.clients, everything, **options)
        failed: list[Trajectory] = []
        for _ in range(self.retries):  # unscored episodes are played again, never scored 0
            again = [i for i, t in enumerate(trajectories) if not t.scored]
            if not again:
                break
            failed += [trajectories[i] for i in again]
            redone = await rollout_tasks(policy, self.clients, [everything[i] for i in again], **options)
            for i, trajectory in zip(again, redone, strict=True):
                trajectories[i] = trajectory
        rows = [score(wanted, tasks, trajectories) for wanted, tasks in lists.items()]
        for row, tasks in zip(rows, lists.values(), strict=True):
            mine = {(t.env, t.task_id) for t in tasks}
            row.replayed = dict(Counter(t.status for t in failed if (t.env, t.task_id) in mine))
        return rows

    def recorded_lists(self) -> dict[str, list[str]]:
        """ "ENV:SPLIT" -> task ids, for the run's files (which tasks every row was scored on)."""
        return {f"{w.env}:{w.split}": [t.task_id for t in tasks] for w, tasks in self._tasks.items()}
