"""Clients of the env-server protocol. Knows only the wire models (coevo.wire), never the envs."""

from coevo.client.errors import (
    EnvClientError,
    EpisodeOver,
    ServerBusy,
    ServerUnreachable,
    SessionNotFound,
)
from coevo.client.http import AsyncEnvClient, AsyncSession, EnvClient, Session

__all__ = [
    "AsyncEnvClient",
    "AsyncSession",
    "EnvClient",
    "EnvClientError",
    "EpisodeOver",
    "ServerBusy",
    "ServerUnreachable",
    "Session",
    "SessionNotFound",
]
