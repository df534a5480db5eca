"""The task catalogue: generated splits (lazy, per-task deterministic) or official query files.

Task ids are "<split>-<index>" (0-based; the official submission files number queries from 1,
so idx = index + 1). A generated task is built on first use and kept, together with the
expert itinerary that proved it feasible; for official queries the expert plans on demand.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from coevo.envs.base import UnknownSplit, UnknownTask
from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.expert import Itinerary, plan_for
from coevo.envs.travelplanner.queries import OFFICIAL_SPLIT_SIZES, Query, load_query_splits
from coevo.envs.travelplanner.query_generator import cell_of, generate_task


@dataclass(frozen=True)
class Task:
    task_id: str
    split: str
    index: int
    query: Query
    itinerary: Itinerary | None


def parse_split_sizes(value: Mapping[str, Any] | str | None) -> dict[str, int]:
    """{"train": 45, ...} from a mapping or "train=45,validation=180,test=1000"."""
    if value is None:
        return dict(OFFICIAL_SPLIT_SIZES)
    if isinstance(value, str):
        pairs = [item.split("=", 1) for item in value.split(",") if item.strip()]
        if any(len(p) != 2 for p in pairs):
            raise ValueError(f"split_sizes must look like 'train=45,validation=180', got {value!r}")
        value = {k.strip(): v.strip() for k, v in pairs}
    sizes = {str(k): int(v) for k, v in value.items()}
    if any(n < 0 for n in sizes.values()):
        raise ValueError("split sizes must be non-negative")
    return sizes


def split_task_id(task_id: str) -> tuple[str, int]:
    split, _, index = task_id.rpartition("-")
    if not split or not index.isdigit():
        raise UnknownTask(f"unknown task id {task_id!r}")
    return split, int(index)


class TaskStore:
    """Splits and tasks of one env configuration, shared read-only by every session."""

    def __init__(
        self,
        db: Sandbox,
        *,
        seed: int = 0,
        split_sizes: Mapping[str, int] | None = None,
        queries: str | None = None,
    ) -> None:
        self.db = db
        self.seed = seed
        self.official: dict[str, list[Query]] | None = load_query_splits(queries) if queries else None
        if self.official is not None:
            self.sizes = {name: len(items) for name, items in self.official.items()}
        else:
            self.sizes = dict(split_sizes or OFFICIAL_SPLIT_SIZES)
        self._tasks: dict[str, Task] = {}
        self._lock = threading.Lock()

    def locate(self, task_id: str) -> tuple[str, int]:
        split, index = split_task_id(task_id)
        if split not in self.sizes or index >= self.sizes[split]:
            raise UnknownTask(f"unknown task id {task_id!r}")
        return split, index

    def ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        if split not in self.sizes:
            raise UnknownSplit(f"unknown split {split!r}; known: {sorted(self.sizes)}")
        stop = self.sizes[split] if limit is None else min(self.sizes[split], offset + limit)
        return [f"{split}-{i}" for i in range(max(offset, 0), stop)]

    def describe(self, task_id: str) -> dict[str, Any]:
        """Level and day count without generating the task (cheap enough for listings)."""
        split, index = self.locate(task_id)
        if self.official is not None:
            query = self.official[split][index]
            return {"level": query.level, "days": query.days}
        level, days = cell_of(index)
        return {"level": level, "days": days}

    def get(self, task_id: str) -> Task:
        split, index = self.locate(task_id)
        with self._lock:
            cached = self._tasks.get(task_id)
        if cached is not None:
            return cached
        if self.official is not None:
            query = self.official[split][index]
            task = Task(task_id, split, index, query, plan_for(query, self.db))
        else:
            generated = generate_task(self.db, self.seed, split, index)
            task = Task(task_id, split, index, generated.query, generated.itinerary)
        with self._lock:
            return self._tasks.setdefault(task_id, task)
