"""Where env code runs: inline for cheap envs, on a thread pool for `cpu_heavy` ones.

The event loop must stay free to accept requests while a slow env steps, so heavy envs'
calls go to a dedicated executor (not anyio's shared pool, which other work may saturate).
Cheap envs (`cpu_heavy = False`, microsecond steps) run inline: a thread hop would cost more
than the step.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from coevo.envs import registry
from coevo.envs.base import Env

T = TypeVar("T")


class EnvRuntime:
    def __init__(self, env: str, options: dict[str, Any] | None = None, threads: int = 0) -> None:
        self.spec = registry.spec(env)
        self.options = dict(options or {})
        # The registry loads shared data once per (env, options) and caches it.
        probe = registry.make(env, **self.options)
        self.env_cls: type[Env] = type(probe)
        self.shared = probe.shared
        self.merged_options = dict(probe.options)
        #: A long-lived instance used only for catalogue queries (splits, task ids).
        self.catalog = probe
        self.name: str = self.env_cls.name
        self.heavy = bool(self.env_cls.cpu_heavy)
        self._executor = ThreadPoolExecutor(
            max_workers=threads or min(32, (os.cpu_count() or 1) + 4),
            thread_name_prefix=f"coevo-env-{self.name}",
        )

    def new_env(self) -> Env:
        return self.env_cls(shared=self.shared, **self.merged_options)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run env code: inline when cheap, on the env thread pool when cpu_heavy."""
        if not self.heavy:
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def offload(self, fn: Callable[..., T], *args: Any) -> T:
        """Always off the loop (replays, admin commands, store reads)."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
