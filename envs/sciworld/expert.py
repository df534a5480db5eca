"""The expert: ScienceWorld's gold action sequence for the (task, variation).

The simulator generates it when a task is loaded with `generateGoldPath` (its own planner, per
variation). Its planner's choices depend on what the JVM did before (the same game's path can
focus on a different living thing after other loads), so each path is computed as the first load
of a JVM of its own, started for it and stopped after (about a second): the same game gets the
same path in every process. It is followed while the agent's actions keep to it; actions the
simulator rejected ("No known action matches that input.") changed nothing and are passed over.
Off that path the expert has no next action (None).
"""

from __future__ import annotations

from collections.abc import Sequence

from coevo.envs.sciworld.jvm import SharedJvm
from coevo.envs.sciworld.simulator import Episode
from coevo.envs.sciworld.tasks import Game


def gold_actions(game: Game) -> tuple[str, ...]:
    """The simulator's gold path for `game` (taken after AgentGym's opening "look around"), as a
    fresh JVM's first load generates it."""
    jvm = SharedJvm(heap_mb=512)
    try:
        return tuple(Episode(jvm, game.task, game.variation, gold_path=True).gold_actions())
    finally:
        jvm.stop()


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
