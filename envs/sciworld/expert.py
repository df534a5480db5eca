"""The expert: ScienceWorld's gold action sequence for the (task, variation).

The simulator generates it when a task is loaded with `generateGoldPath` (its own planner, per
variation). Where several objects would do ("focus on an animal": a blue jay, a butterfly or a
dove egg), the planner takes the first it meets while iterating hash sets of the simulator's
objects, whose order follows their identity hash codes. The JVM's default identity hashes come
from per-thread random state, so the choice changed with what the JVM had loaded before and
with its threads' timing (find-living-thing variation 3: a fresh JVM named the butterfly egg, one
after four other loads the dove, and a full test run once the blue jay). So the paths come from a JVM of their own started with constant
identity hashes (`-XX:hashCode=2`, an experimental HotSpot option): hash-set order is then
insertion order, the same whatever ran before, and one warm JVM serves every path (a load, not
a JVM start, per path). The sessions' own JVM keeps the default hashing: its observations are
the ones AgentGym's server gives. The gold path is valid there too: the same world holds the
same objects whatever the hashing, except in the few games whose accepted box follows the JVM's
state (3 use-thermometer games of 4,639, bench/results/sciworld.md).

The path is followed while the agent's actions keep to it; actions the simulator rejected ("No
known action matches that input.") changed nothing and are passed over. Off that path the
expert has no next action (None).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from py4j.protocol import Py4JError

from coevo.envs.sciworld.jvm import JvmDied, SharedJvm
from coevo.envs.sciworld.simulator import Episode
from coevo.envs.sciworld.tasks import Game

#: The gold-path JVM's options: constant identity hash codes (see the module's docstring).
CONSTANT_HASHES = ("-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=2")
#: Loads after which the gold-path JVM starts afresh: the simulator keeps memory per load (the
#: 256 MB heap ran out after about 50 in bench/sciworld.py --all).
RECYCLE = 24


class GoldPaths:
    """Gold paths from one JVM with constant identity hashes, started on the first request
    (or by `prepare`) and kept; paths are cached per game for the process. Its heap is capped
    small (`heap_mb`), and it is started afresh every RECYCLE loads."""

    def __init__(self, heap_mb: int = 256) -> None:
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[str, ...]] = {}
        self.jvm = SharedJvm(heap_mb=heap_mb, java_options=CONSTANT_HASHES)
        self._starter: threading.Thread | None = None
        self._loads = 0  # loads since the JVM started

    def prepare(self) -> None:
        """Start the JVM in the background, so the first path does not wait for it."""
        if self._starter is None:
            self._starter = threading.Thread(target=self.jvm.start, name="sciworld-gold-jvm", daemon=True)
            self._starter.start()

    def get(self, game: Game) -> tuple[str, ...]:
        """The simulator's gold path for `game` (taken after AgentGym's opening "look around")."""
        with self._lock:
            if game.task_id not in self._cache:
                self._cache[game.task_id] = self.compute(game)
            return self._cache[game.task_id]

    def compute(self, game: Game) -> tuple[str, ...]:
        """The gold path from a new load of `game` (no cache). The simulator keeps memory per
        load, so the JVM is started afresh every RECYCLE loads, and once more if a load fails
        (it ran out of its heap and exited): paths do not depend on the JVM's history."""
        if self._starter is not None:
            self._starter.join()
        if self._loads >= RECYCLE:
            self.jvm.stop()
            self._loads = 0
        for attempt in (1, 2):
            try:
                self._loads += 1
                episode = Episode(self.jvm, game.task, game.variation, gold_path=True)
                return tuple(episode.gold_actions())
            except (Py4JError, JvmDied):
                if attempt == 2:
                    raise
                self.jvm.stop()
                self._loads = 0
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Stop the JVM (a later path starts it again)."""
        if self._starter is not None:
            self._starter.join()
        self.jvm.stop()


REJECTED = "No known action matches that input."


def next_action(gold: Sequence[str], taken: Sequence[str], rejected: Sequence[bool]) -> str | None:
    """The gold path's next action while `taken` follows it (`rejected[i]`: the simulator
    rejected action i, which changed nothing), else None."""
    position = 0
    for action, was_rejected in zip(taken, rejected):
        if position < len(gold) and action == gold[position]:
            position += 1
        elif not was_rejected:
            return None
    return gold[position] if position < len(gold) else None
