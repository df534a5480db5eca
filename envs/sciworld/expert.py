"""The expert: ScienceWorld's gold action sequence for the (task, variation).

The simulator generates it when a task is loaded with `generateGoldPath` (its own planner, per
variation). Its planner's choices depend on what the JVM did before (the same game's path can
focus on a different living thing after other loads), so each path is computed as the first load
of a JVM of its own, used once and stopped (`GoldPaths`): the same game gets the same path in
every process. It is followed while the agent's actions keep to it; actions the
simulator rejected ("No known action matches that input.") changed nothing and are passed over.
Off that path the expert has no next action (None).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from coevo.envs.sciworld.jvm import SharedJvm
from coevo.envs.sciworld.simulator import Episode
from coevo.envs.sciworld.tasks import Game


class GoldPaths:
    """Gold paths, each from the first load of a fresh JVM. One spare JVM is kept started (about
    40 MB, nothing loaded), so a path costs one load, not a JVM start; a new spare starts in the
    background as each one is used. Paths are cached per game for the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[str, ...]] = {}
        self._spare: Future[SharedJvm] | None = None
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sciworld-spare-jvm")

    def _started(self) -> SharedJvm:
        jvm = SharedJvm(heap_mb=512)
        jvm.start()  # nothing is made in it: the path must be its first simulator's first load
        return jvm

    def prepare(self) -> None:
        """Start the spare JVM in the background, if none is there."""
        if self._spare is None:
            self._spare = self._pool.submit(self._started)

    def get(self, game: Game) -> tuple[str, ...]:
        """The simulator's gold path for `game` (taken after AgentGym's opening "look around")."""
        with self._lock:
            if game.task_id in self._cache:
                return self._cache[game.task_id]
            self.prepare()
            assert self._spare is not None
            try:
                jvm = self._spare.result()
            except Exception:  # a spare that failed to start: start one now
                jvm = self._started()
            self._spare = None
            self.prepare()
            try:
                path = tuple(Episode(jvm, game.task, game.variation, gold_path=True).gold_actions())
            finally:
                jvm.stop()
            self._cache[game.task_id] = path
            return path


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
