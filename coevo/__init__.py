"""coevo: HTTP environment servers for LLM agents, with AgentEvol and GenEnv trainers."""

__version__ = "0.1.0"
