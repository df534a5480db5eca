"""AgentGym's Weather tool env (AgentBoard's tool tasks) over an offline weather sandbox."""
