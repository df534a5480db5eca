"""Academia as AgentGym's `agentenv-academia` server answers: the tool servers' shared profile
(envs/toolusage/agentgym.py); task i is line i of academia.jsonl, our `test` split. Its reward
is the raw progress rate (no positive -> 1.0 rule), which `AcademiaEnv.agentgym_reward` gives."""

from __future__ import annotations

from coevo.envs.toolusage.agentgym import PROFILE

__all__ = ["PROFILE"]
