"""ScienceWorld (AgentGym's SciWorld): the real simulator through the `scienceworld` package."""
