"""A cpu_heavy env's cheap calls earn their way onto the event loop; slow ones stay on the pool,
and a kind that turns out slow inline goes back and must earn its place again, for longer."""

from __future__ import annotations

import asyncio
import functools
import threading
import time

from coevo.server.inline_calls import InlinePolicy, call_kind, voluntary_switches
from coevo.server.runtime import EnvRuntime

HEAVY = "tests.server.envs:SlowGuessEnv"  # cpu_heavy; its step sleeps 2 ms


def test_a_kind_runs_inline_after_a_streak_of_cheap_calls() -> None:
    policy = InlinePolicy(below_s=0.001, streak=4)
    for _ in range(3):
        policy.pooled("step", 0.0001)
    assert not policy.inline("step")
    policy.pooled("step", 0.0001)
    assert policy.inline("step") and not policy.inline("reset")
    policy.pooled("reset", 0.0001)
    policy.pooled("reset", 0.5)  # one slow call ends the streak
    assert policy.state() == {"step": True, "reset": False}


def test_a_slow_inline_call_sends_its_kind_back_for_twice_as_long() -> None:
    policy = InlinePolicy(below_s=0.001, block_s=0.01, streak=2, max_strikes=2)
    policy.pooled("step", 0.0)
    policy.pooled("step", 0.0)
    policy.ran_inline("step", 0.0005, 0.005)  # within both bounds (preempted for a while): stays
    assert policy.inline("step")
    policy.ran_inline("step", 0.002, 0.002)  # too much CPU
    assert not policy.inline("step")
    for _ in range(3):
        policy.pooled("step", 0.0)
    assert not policy.inline("step")  # needs 2 << 1 = 4 now
    policy.pooled("step", 0.0)
    assert policy.inline("step")
    for _ in range(3):  # blocked, again and again: the doubling stops at max_strikes
        policy.ran_inline("step", 0.0, 0.05)
    for _ in range(7):
        policy.pooled("step", 0.0)
    assert not policy.inline("step")  # 2 << 2 = 8
    policy.pooled("step", 0.0)
    assert policy.inline("step")


def test_good_inline_calls_forgive_a_strike() -> None:
    policy = InlinePolicy(below_s=0.001, block_s=0.01, streak=2)
    for _ in range(4):
        policy.pooled("step", 0.0)
    policy.ran_inline("step", 0.0, 0.05)  # one false strike: needs 4 cheap calls in a row now
    for _ in range(4):
        policy.pooled("step", 0.0)
    for _ in range(4):  # 2 << 1 good inline calls forgive it
        policy.ran_inline("step", 0.0001, 0.0001)
    policy.ran_inline("step", 0.0, 0.05)  # the next strike asks for 4 again, not 8
    for _ in range(4):
        policy.pooled("step", 0.0)
    assert policy.inline("step")


def test_call_kind_names_the_function_under_partials_and_methods() -> None:
    class Env:
        def step(self, action: str) -> str:
            return action

    assert call_kind(Env().step) == "step"
    assert call_kind(functools.partial(functools.partial(Env().step), "x")) == "step"


def test_the_runtime_moves_cheap_heavy_calls_onto_the_loop_and_keeps_slow_ones_off() -> None:
    runtime = EnvRuntime(HEAVY, threads=2, inline_below_s=0.001)
    runtime.inline_policy.streak = 3
    loop_thread = threading.get_ident()

    def cheap() -> int:
        return threading.get_ident()

    def slow() -> int:
        time.sleep(0.05)
        return threading.get_ident()

    async def run() -> tuple[list[bool], list[bool]]:
        cheap_on_loop = [await runtime.call(cheap) == loop_thread for _ in range(5)]
        slow_on_loop = [await runtime.call(slow) == loop_thread for _ in range(5)]
        return cheap_on_loop, slow_on_loop

    try:
        cheap_on_loop, slow_on_loop = asyncio.run(run())
    finally:
        runtime.shutdown()
    assert cheap_on_loop == [False, False, False, True, True]
    # A sleep costs no CPU time, so it earns the loop too — once: the first inline call blocks
    # past block_s (40 ms here) and that sends it back.
    assert slow_on_loop == [False, False, False, True, False]
    assert runtime.inline_policy.state() == {"cheap": True, "slow": False}


def test_a_zero_bound_keeps_every_heavy_call_on_the_pool() -> None:
    runtime = EnvRuntime(HEAVY, threads=1, inline_below_s=0.0)

    async def run() -> list[int]:
        return [await runtime.call(threading.get_ident) for _ in range(50)]

    try:
        assert threading.get_ident() not in asyncio.run(run())
    finally:
        runtime.shutdown()


def test_a_preempted_inline_call_keeps_its_place_and_a_blocked_one_loses_it() -> None:
    policy = InlinePolicy(below_s=0.001, block_s=0.01, streak=1)
    policy.pooled("step", 0.0)
    policy.ran_inline("step", 0.0001, 0.05, blocked=False)  # waited 50 ms for a core
    assert policy.inline("step")
    policy.ran_inline("step", 0.0001, 0.05, blocked=True)  # slept 50 ms
    assert not policy.inline("step")


def test_sleeping_counts_as_a_voluntary_switch() -> None:
    before = voluntary_switches()
    time.sleep(0.002)
    assert before == -1 or voluntary_switches() > before
