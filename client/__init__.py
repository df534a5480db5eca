"""Clients of the env-server protocol. Knows only the wire models, never the envs."""
