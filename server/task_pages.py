"""GET /tasks pages: computed off the event loop, one at a time, and cached.

A page describes every task on it (`Env.describe_task`), which costs milliseconds per task on
some envs: a 10,000-task page once held an env server's event loop for 18 s. Pages now run on one
dedicated catalogue thread (so a burst of large pages cannot occupy the env threads either),
identical requests in flight share one computation, and finished pages are kept, serialized,
in a size-bounded LRU cache keyed by (split, offset, limit, split size): a split that grows
(an env that records generated tasks) changes its size and so never serves a stale page.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from cachetools import LRUCache

from coevo.envs.base import UnknownSplit
from coevo.wire import TaskEntry, TaskListResponse

PageKey = tuple[str, int, int, int]


class TaskPages:
    def __init__(self, catalog: Any, default_split: str, *, max_cached_bytes: int) -> None:
        self._catalog = catalog
        self._default_split = default_split
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="coevo-catalog")
        self._cache: LRUCache[PageKey, bytes] = LRUCache(maxsize=max_cached_bytes, getsizeof=len)
        self._in_flight: dict[PageKey, asyncio.Future[bytes]] = {}

    async def page(self, split: str | None, offset: int, limit: int) -> bytes:
        """The JSON of one TaskListResponse page."""
        split = split or self._default_split
        splits: Mapping[str, int] = await self._off_loop(self._catalog.splits)
        if split not in splits:
            raise UnknownSplit(f"unknown split {split!r}; known: {sorted(splits)}")
        key = (split, offset, limit, int(splits[split]))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        pending = self._in_flight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future = asyncio.ensure_future(self._off_loop(self._render, key))
        self._in_flight[key] = future
        try:
            payload = await asyncio.shield(future)
        finally:
            if future.done():
                self._in_flight.pop(key, None)
            else:  # this caller was cancelled; the page still finishes for the others
                future.add_done_callback(lambda _f: self._in_flight.pop(key, None))
        if len(payload) <= self._cache.maxsize:
            self._cache[key] = payload
        return payload

    def _render(self, key: PageKey) -> bytes:
        split, offset, limit, total = key
        ids = self._catalog.task_ids(split, offset, limit)
        page = TaskListResponse(
            split=split,
            total=total,
            offset=offset,
            tasks=[TaskEntry(task_id=t, split=split, meta=self._catalog.describe_task(t)) for t in ids],
        )
        # exclude_none: a plain page has no `stats` (difficulty listings do); meta keeps its nulls.
        return TaskListResponse.__pydantic_serializer__.to_json(page, fallback=str, warnings=False, exclude_none=True)

    async def _off_loop(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
