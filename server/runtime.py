"""Where env code runs: inline for cheap envs, on a thread pool for `cpu_heavy` ones.

The event loop must stay free to accept requests while a slow env steps, so heavy envs'
calls go to a dedicated executor (not anyio's shared pool, which other work may saturate).
Cheap envs (`cpu_heavy = False`, microsecond steps) run inline: a thread hop would cost more
than the step. A heavy env's calls that prove cheap run inline too (server/inline_calls.py).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from coevo.envs import registry
from coevo.envs.base import Env
from coevo.server.inline_calls import InlinePolicy, call_kind, voluntary_switches

T = TypeVar("T")


class EnvRuntime:
    def __init__(
        self, env: str, options: dict[str, Any] | None = None, threads: int = 0, inline_below_s: float = 0.0005
    ) -> None:
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
        self._inline_calls = 0
        self.inline_policy = InlinePolicy(below_s=inline_below_s, block_s=max(0.02, 40 * inline_below_s))
        self._executor = ThreadPoolExecutor(
            max_workers=threads or min(32, (os.cpu_count() or 1) + 4),
            thread_name_prefix=f"coevo-env-{self.name}",
        )

    def new_env(self) -> Env:
        return self.env_cls(shared=self.shared, **self.merged_options)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run env code: inline when cheap, on the env thread pool when cpu_heavy, except the
        kinds of call of a heavy env that have proved cheap (server/inline_calls.py)."""
        if not self.heavy:
            return fn(*args)
        kind = call_kind(fn)
        if self.inline_policy.inline(kind):
            # The thread's CPU time and context switches cost a system call each (under load
            # they showed in the profile), so they are read on one inline call in 8; the others
            # are timed by the wall clock alone, and over block_s count as blocked.
            self._inline_calls += 1
            exact = not self._inline_calls & 7
            switches, cpu0 = (voluntary_switches(), time.thread_time()) if exact else (-1, 0.0)
            wall0 = time.perf_counter()
            try:
                return fn(*args)
            finally:
                wall = time.perf_counter() - wall0
                cpu = time.thread_time() - cpu0 if exact else 0.0
                blocked = switches < 0 or voluntary_switches() > switches
                self.inline_policy.ran_inline(kind, cpu, wall, blocked)
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._timed, kind, fn, args)

    def _timed(self, kind: str, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        t0 = time.thread_time()
        try:
            return fn(*args)
        finally:
            self.inline_policy.pooled(kind, time.thread_time() - t0)

    async def offload(self, fn: Callable[..., T], *args: Any) -> T:
        """Always off the loop (replays, admin commands, store reads)."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
