"""What the store records when a session leaves an episode: its end status if it had none yet.

An episode the env finished keeps the status its last step wrote (success, failure, truncated);
one left while it was still running gets the status of why it was left (abandoned, env_error,
or what the client reported), so no episode stays "running" after its session is gone and none
is ever recorded as a failure the env did not decide. Shared by the service and the recovery.
"""

from __future__ import annotations

from typing import Any

from coevo.end_status import RUNNING

#: The longest error text kept with an episode (an exception's message can be a whole dump).
MAX_ERROR_CHARS = 2000


def end_fields(current: str, status: str, error: str | None = None) -> dict[str, Any]:
    """The fields to write when an episode whose status is `current` is left for `status`."""
    if current != RUNNING:
        return {}
    fields: dict[str, Any] = {"status": status}
    if error:
        fields["error"] = error[:MAX_ERROR_CHARS]
    return fields
