"""AgentEvol: behavioral cloning then explore-and-learn iterations, over the env servers' HTTP API."""

from coevo.agentevol.config import PRESETS, AgentEvolConfig, from_preset, parse_overrides

__all__ = ["PRESETS", "AgentEvolConfig", "from_preset", "parse_overrides"]
