"""Which end status a failed exchange with an env server gives an episode (coevo.end_status).

The client sees failures the server cannot: the connection was lost (`transport_error`), or its
answer says the lease is gone (`abandoned`) or the server's side failed or refused
(`env_error`). None of them is a verdict on the agent, so none may become a reward of 0.
"""

from __future__ import annotations

from coevo.client.errors import EnvClientError, ServerBusy, ServerUnreachable, SessionNotFound
from coevo.end_status import EndStatus


def status_of(exc: EnvClientError) -> EndStatus:
    """The end status of an episode cut short by `exc`."""
    if isinstance(exc, (ServerUnreachable, ServerBusy)) or exc.status is None:
        return EndStatus.TRANSPORT_ERROR
    if isinstance(exc, SessionNotFound):
        return EndStatus.ABANDONED
    return EndStatus.ENV_ERROR


def describe(exc: BaseException) -> str:
    """`exc` as one line for a trajectory's `error` (and the report to the server)."""
    return f"{type(exc).__name__}: {exc}"
