"""Evaluation over env servers: pick tasks from a split, roll a policy out, summarise.

Tasks are spread evenly over the split (not its first N), so a small evaluation still covers
every task type of splits that are ordered by type. Used by `coevo eval`, `coevo demo` and the
AgentEvol trainer alike, so all three report the same numbers the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from coevo.client.http import AsyncEnvClient
from coevo.client.policies.base import Policy, Sampling
from coevo.client.policies.prompts import EnvPrompt
from coevo.client.rollout import RolloutEngine
from coevo.client.summary import summarize
from coevo.client.trajectory import EpisodeSpec, Trajectory, task_type_of

#: Splits preferred for evaluation when none is named, most preferred first.
EVAL_SPLITS = ("test", "valid_unseen", "valid_seen", "dev", "eval", "valid", "validation")


@dataclass(frozen=True)
class TaskRef:
    env: str
    task_id: str
    split: str
    meta: Mapping[str, Any]


def spread_indices(total: int, n: int, offset: int = 0) -> list[int]:
    """n indices spread evenly over range(offset, total) (all of them when n >= the range)."""
    span = max(0, total - offset)
    if n >= span:
        return list(range(offset, total))
    return [offset + (i * span) // n for i in range(n)]


def eval_split(splits: Mapping[str, int], default: str) -> str:
    """The split to evaluate on when the user names none."""
    for name in EVAL_SPLITS:
        if splits.get(name):
            return name
    return default


async def pick_tasks(client: AsyncEnvClient, env: str, split: str, n: int, offset: int = 0) -> list[TaskRef]:
    """n tasks of `split`, spread evenly, with their catalogue metadata."""
    first = await client.tasks(split, offset=0, limit=1)
    indices = spread_indices(first.total, n, offset)

    async def one(index: int) -> TaskRef:
        page = await client.tasks(split, offset=index, limit=1)
        entry = page.tasks[0]
        return TaskRef(env, entry.task_id, entry.split, entry.meta)

    return list(await asyncio.gather(*(one(i) for i in indices)))


def episode_specs(tasks: Sequence[TaskRef], samples: int = 1, seed: int = 0) -> list[EpisodeSpec]:
    """K samples of every task (exploration draws several; evaluation one)."""
    return [
        EpisodeSpec(t.env, task_id=t.task_id, split=t.split, seed=seed + k, sample=k)
        for t in tasks
        for k in range(samples)
    ]


async def rollout_tasks(
    policy: Policy,
    clients: Mapping[str, AsyncEnvClient | Sequence[AsyncEnvClient]],
    tasks: Sequence[TaskRef],
    *,
    samples: int = 1,
    seed: int = 0,
    max_rounds: int | Mapping[str, int] | None = None,
    concurrency: int = 32,
    sampling: Sampling | None = None,
    prompt_options: Mapping[str, Any] | None = None,
    prompts: Mapping[str, EnvPrompt] | None = None,
    on_done: Callable[[Trajectory], Any] | None = None,
    run: str | None = None,
) -> list[Trajectory]:
    """Run `samples` episodes of each task; task types missing from reset info come from the
    catalogue. `prompts` replace envs' own prompts (e.g. a trained agent's own view of a task)."""
    meta = {(t.env, t.task_id): t.meta for t in tasks}
    engine = RolloutEngine(
        policy, clients, max_rounds=max_rounds, concurrency=concurrency, sampling=sampling,
        prompts=prompts, prompt_options=prompt_options, run=run,
    )  # fmt: skip

    def done(trajectory: Trajectory) -> None:
        if trajectory.task_type is None:
            trajectory.task_type = task_type_of({}, meta.get((trajectory.env, trajectory.task_id)))
        if on_done is not None:
            on_done(trajectory)

    return await engine.run(episode_specs(tasks, samples, seed), on_done=done)


def results_document(
    trajectories: Sequence[Trajectory], *, policy: Policy, config: Mapping[str, Any]
) -> dict[str, Any]:
    """The JSON results file: what was run, the summary, per-env summaries, and per-episode rows."""
    by_env: dict[str, list[Trajectory]] = {}
    for t in trajectories:
        by_env.setdefault(t.env, []).append(t)
    return {
        "policy": policy.describe(),
        "config": dict(config),
        "summary": summarize(trajectories),
        "by_env": {env: summarize(items) for env, items in sorted(by_env.items())},
        "episodes": [
            {
                "env": t.env,
                "task_id": t.task_id,
                "split": t.split,
                "sample": t.sample,
                "task_type": t.task_type,
                "success": t.success,
                "reward": t.reward,
                "steps": t.steps,
                "rounds": t.rounds,
                "status": t.status,
                "end_reason": t.end_reason,
                "error": t.error,
                "env_version": t.env_version,
                "score_mode": t.score_mode,
                "duration_s": round(t.duration_s, 3),
            }
            for t in trajectories
        ],  # fmt: skip
    }
