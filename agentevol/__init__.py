"""AgentEvol: behavioral cloning, then iterations of explore -> learn (AgentGym)."""
