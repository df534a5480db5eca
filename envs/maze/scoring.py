"""Maze's reward as AgentGym's server sets it up: 1 for reaching the goal, 0 for any other move
(an illegal one included), -1 for the step after 50 moves that did not reach it."""

from __future__ import annotations

SUCCESS_REWARD = 1.0
STEP_REWARD = 0.0
FAILURE_REWARD = -1.0
