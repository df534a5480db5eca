"""TODOList as AgentGym's `agentenv-todo` server answers: the tool servers' shared profile
(envs/toolusage/agentgym.py); task i is line i of todo.jsonl, our `test` split."""

from __future__ import annotations

from coevo.envs.toolusage.agentgym import PROFILE

__all__ = ["PROFILE"]
