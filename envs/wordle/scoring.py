"""Wordle's reward as AgentGym's server gives it: 1 on the guess that wins, else 0.

LMRL-Gym scores every turn -1 and the winning one 0 (an invalid word -1); AgentGym's server adds
1 to a reward that is not positive, so its agents see 0 per turn and 1 for the win.
"""

from __future__ import annotations

LMRL_TURN = -1.0
LMRL_WIN = 0.0


def agentgym_reward(lmrl_reward: float) -> float:
    return lmrl_reward + 1 if lmrl_reward <= 0 else lmrl_reward


def reward(won: bool) -> float:
    return agentgym_reward(LMRL_WIN if won else LMRL_TURN)
