"""GET /tasks filtered by difficulty: a split's tasks whose estimated success rate for a policy
tag lies in [p_min, p_max], from the store's per-task statistics (coevo.store.task_stats).

The estimate is successes / episodes over the episodes the env judged; a task needs at least
`min_episodes` of them (at least 1: a task never played has no estimate and is never listed).
The listing keeps the split's order and pages like a plain one; every entry carries its
statistics with the Wilson interval, so a curriculum can also act on the uncertainty. A policy
tag nobody played under lists nothing (an empty page, not an error): a new policy has no
history yet. Computed off the event loop on each request (never cached: the counts move).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine

from coevo.envs.base import Env, UnknownSplit
from coevo.store.task_stats import task_difficulty
from coevo.wire import TaskEntry, TaskListResponse, TaskStats


@dataclass(frozen=True)
class DifficultyFilter:
    p_min: float = 0.0
    p_max: float = 1.0
    policy: str | None = None
    min_episodes: int = 1


def difficulty_page(
    engine: Engine, catalog: Env, env: str, split: str, offset: int, limit: int, wanted: DifficultyFilter
) -> bytes:
    """The JSON of one TaskListResponse page of `split`'s tasks that pass `wanted`."""
    splits = catalog.splits()
    if split not in splits:
        raise UnknownSplit(f"unknown split {split!r}; known: {sorted(splits)}")
    known = task_difficulty(engine, env, wanted.policy, wanted.min_episodes)
    chosen = []
    for task_id in catalog.task_ids(split):
        found = known.get(task_id)
        if found is not None and wanted.p_min <= found.success_rate <= wanted.p_max:
            chosen.append(found)
    entries = []
    for found in chosen[offset : offset + limit]:
        low, high = found.interval()
        stats = TaskStats(
            policy=wanted.policy, episodes=found.episodes, successes=found.successes,
            success_rate=found.success_rate, ci95_low=low, ci95_high=high,
        )  # fmt: skip
        meta = catalog.describe_task(found.task_id)
        entries.append(TaskEntry(task_id=found.task_id, split=split, meta=meta, stats=stats))
    page = TaskListResponse(split=split, total=len(chosen), offset=offset, tasks=entries)
    return TaskListResponse.__pydantic_serializer__.to_json(page, fallback=str, warnings=False)
