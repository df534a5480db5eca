"""SciWorld's expert: its gold paths are the same whatever the gold-path JVM loaded before."""

from __future__ import annotations

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
