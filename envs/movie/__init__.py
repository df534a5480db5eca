"""AgentGym's Movie tool env (AgentBoard's movie tasks) over an offline movie database."""
