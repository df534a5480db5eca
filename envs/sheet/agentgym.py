"""Sheet as AgentGym's `agentenv-sheet` server answers: the tool servers' shared profile
(envs/toolusage/agentgym.py); task i is line i of sheet.jsonl, our `test` split. Its step
differs (the env's `_step`): the reward is the raw match score, and a step whose observation
contains "error" is taken again, up to four times in all."""

from __future__ import annotations

from coevo.envs.toolusage.agentgym import PROFILE

__all__ = ["PROFILE"]
