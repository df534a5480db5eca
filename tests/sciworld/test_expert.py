"""SciWorld's expert: its gold paths are the same whatever the gold-path JVM loaded before, and
after that JVM died."""

from __future__ import annotations

import os
import signal

from coevo.envs.sciworld import tasks
from coevo.envs.sciworld.expert import GoldPaths


def test_a_gold_path_does_not_depend_on_the_jvms_history() -> None:
    """find-living-thing var3 (AgentGym's item 2939) may focus on any of three eggs; with the JVM's default identity hashes
    the choice changed after other loads (butterfly fresh, dove after four loads, here)."""
    games = {g.task_id: g for g in tasks.load().games}
    target = games["find-living-thing-var3"]
    paths = GoldPaths()
    try:
        first = paths.compute(target)
        for other in ("lifespan-longest-lived-then-shortest-lived-var110", "find-animal-var164"):
            paths.compute(games[other])
        again = paths.compute(target)
    finally:
        paths.close()
    assert first == again
    assert first[:3] == ("look around", "focus on blue jay", "pick up blue jay")


def test_a_dead_gold_path_jvm_is_started_again_with_the_same_path() -> None:
    """The gold-path JVM exits when its heap runs out (the simulator keeps memory per load):
    the next path is taken from a new one, and is the same."""
    game = next(g for g in tasks.load().games if g.task_id == "find-non-living-thing-var1")
    paths = GoldPaths()
    try:
        first = paths.compute(game)
        pid = paths.jvm.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert paths.compute(game) == first
        assert paths.jvm.pid not in (None, pid)
    finally:
        paths.close()
