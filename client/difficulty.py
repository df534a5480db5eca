"""A split's tasks filtered by estimated difficulty, every page of GET /tasks gathered.

The server keeps per-task, per-policy-tag success counts (docs/protocol.md, "Per-task
difficulty"); a curriculum asks for the tasks whose rate lies in a band and reads each one's
statistics (episodes, Wilson interval) from the answer. Trainers use this, never the store.
"""

from __future__ import annotations

from coevo.client.http import AsyncEnvClient
from coevo.wire import MAX_TASKS_PAGE, TaskEntry


async def tasks_by_difficulty(
    client: AsyncEnvClient,
    split: str,
    *,
    p_min: float = 0.0,
    p_max: float = 1.0,
    policy: str | None = None,
    min_episodes: int = 1,
) -> list[TaskEntry]:
    """Every task of `split` played at least `min_episodes` judged times under `policy` (None:
    every tag pooled) whose success rate lies in [p_min, p_max], in the split's order."""
    found: list[TaskEntry] = []
    while True:
        page = await client.tasks(
            split, offset=len(found), limit=MAX_TASKS_PAGE, p_min=p_min, p_max=p_max, policy=policy,
            min_episodes=min_episodes,
        )  # fmt: skip
        found += page.tasks
        if not page.tasks or len(found) >= page.total:
            return found
