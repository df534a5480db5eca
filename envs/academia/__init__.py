"""AgentGym's Academia tool env (AgentBoard's academia tasks) over an offline citation network."""
