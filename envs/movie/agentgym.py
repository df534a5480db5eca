"""Movie as AgentGym's `agentenv-movie` server answers: the tool servers' shared profile
(envs/toolusage/agentgym.py); task i is line i of movie.jsonl, our `test` split. Its reward
is the raw progress rate (no positive -> 1.0 rule), which `MovieEnv.agentgym_reward` gives."""

from __future__ import annotations

from coevo.envs.toolusage.agentgym import PROFILE

__all__ = ["PROFILE"]
