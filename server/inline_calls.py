"""Which calls of a `cpu_heavy` env may run inline on the event loop: those that have proved cheap.

A heavy env's calls go to a thread pool so a slow one never stalls the loop. But "heavy" is a
property of some calls (a reset that builds a whole scene), not of all: such an env's step can take microseconds,
and the thread hop around it (submit, a future, a wake-up, the GIL handed back and forth) cost
more than the step itself on every step of every rollout (issue #42).

So each kind of call (the function's name: step, reset, expert_action, ...) earns the right to
run inline: after `streak` calls in a row each under `below_s` of its thread's CPU time, it runs
on the loop (CPU time, not wall time: on a loaded machine a call's wall time includes waiting for
the GIL or for a core, which says nothing about the call). An inline call that takes `below_s`
of CPU, or that blocked (the thread gave up its core: a sleep, I/O, a lock) and took `block_s`
of wall time, sends its kind back to the pool; the streak it must earn again doubles with each
such strike (up to `max_strikes` doublings), so a kind that blocks now and then runs on the pool
nearly always; as many good inline calls in a row as the streak it earned forgive one strike, so
a false strike (a GIL hand-over or a long preemption that looked like blocking on a loaded
machine) does not keep a cheap kind off the loop for good. Being preempted is not blocking:
Linux counts the two apart (`getrusage(RUSAGE_THREAD)`: voluntary and involuntary context
switches), read on one inline call in 8 (each costs a system call); the other inline calls, and
every one off Linux, count as blocked when they take `block_s`.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

if sys.platform == "linux":
    import resource

    _RUSAGE_THREAD: int | None = resource.RUSAGE_THREAD
else:
    _RUSAGE_THREAD = None


def voluntary_switches() -> int:
    """Times this thread has given up its core on its own so far (-1 where unknown)."""
    if _RUSAGE_THREAD is None:
        return -1
    return resource.getrusage(_RUSAGE_THREAD).ru_nvcsw


def call_kind(fn: Callable[..., Any]) -> str:
    """A call's kind: the name of the function (a partial's or bound method's underlying one)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return getattr(fn, "__name__", type(fn).__name__)


@dataclass
class _Kind:
    cheap: int = 0  # calls in a row under the CPU bound
    good: int = 0  # inline calls in a row within both bounds
    strikes: int = 0


@dataclass
class InlinePolicy:
    below_s: float = 0.0005
    block_s: float = 0.02
    streak: int = 32
    max_strikes: int = 10
    _kinds: dict[str, _Kind] = field(default_factory=dict)

    def inline(self, kind: str) -> bool:
        state = self._kinds.get(kind)
        return state is not None and state.cheap >= self.streak << state.strikes

    def pooled(self, kind: str, cpu_s: float) -> None:
        """A call of `kind` on the pool took `cpu_s` of its thread's CPU time."""
        state = self._kinds.setdefault(kind, _Kind())
        state.cheap = state.cheap + 1 if cpu_s < self.below_s else 0

    def ran_inline(self, kind: str, cpu_s: float, wall_s: float, blocked: bool = True) -> None:
        """A call of `kind` ran inline (`blocked`: it gave up its core on its own): over a bound,
        it goes back to the pool."""
        state = self._kinds[kind]
        if cpu_s >= self.below_s or (blocked and wall_s >= self.block_s):
            state.cheap = state.good = 0
            state.strikes = min(state.strikes + 1, self.max_strikes)
            return
        state.good += 1
        if state.strikes and state.good >= self.streak << state.strikes:
            state.strikes -= 1
            state.good = 0

    def state(self) -> dict[str, bool]:
        """Each kind seen so far and whether it runs inline now."""
        return {kind: self.inline(kind) for kind in self._kinds}
