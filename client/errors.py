"""Exceptions raised by the env clients, one per error class a caller may want to handle."""

from __future__ import annotations


class EnvClientError(Exception):
    """The server answered with an error body, or could not be reached at all."""

    def __init__(self, message: str, *, status: int | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code

    def __str__(self) -> str:
        prefix = f"[{self.status} {self.code}] " if self.status else ""
        return prefix + super().__str__()


class SessionNotFound(EnvClientError):
    """404 on a session route: unknown, expired or closed."""


class EpisodeOver(EnvClientError):
    """409: the episode ended (or never started); reset or create a new session."""


class ServerBusy(EnvClientError):
    """429/503 still returned after every retry."""


class ServerUnreachable(EnvClientError):
    """No connection could be made after every retry."""


def error_for(status: int, code: str, message: str) -> EnvClientError:
    if status == 404 and code in {"session_not_found", "session_expired"}:
        return SessionNotFound(message, status=status, code=code)
    if status == 409:
        return EpisodeOver(message, status=status, code=code)
    if status in (429, 503):
        return ServerBusy(message, status=status, code=code)
    return EnvClientError(message, status=status, code=code)
