"""The expert: ScienceWorld's gold action sequence for the (task, variation).

The simulator generates it when a task is loaded with `generateGoldPath` (its own planner, per
variation). It is computed in a separate simulator so the session's episode is loaded exactly as
AgentGym's server loads it, and followed only while the agent's actions match its prefix: off
that path the expert has no next action (None).
"""

from __future__ import annotations

from collections.abc import Sequence

from coevo.envs.sciworld.jvm import SharedJvm
from coevo.envs.sciworld.simulator import Episode
from coevo.envs.sciworld.tasks import Game


def gold_actions(jvm: SharedJvm, game: Game) -> tuple[str, ...]:
    """The simulator's gold path for `game` (taken after AgentGym's opening "look around")."""
    return tuple(Episode(jvm, game.task, game.variation, gold_path=True).gold_actions())


def next_action(gold: Sequence[str], taken: Sequence[str]) -> str | None:
    """The gold path's next action while `taken` follows it, else None."""
    if len(taken) >= len(gold) or list(taken) != list(gold[: len(taken)]):
        return None
    return gold[len(taken)]
