"""TextCraft's reward: 1 for the step that takes or crafts the goal item, else 0.

AgentGym's server ends the episode (done) on that step and keeps no end state: crafting the
goal again scores again, which its clients never do.
"""

from __future__ import annotations


def reward_for(item_id: str | None, goal: str) -> float:
    return 1.0 if item_id == goal else 0.0
