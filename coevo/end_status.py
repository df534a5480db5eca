"""How an episode ended: one taxonomy for the server, the store, the client, the trainers and the
integrations, so that a reward is only ever one the env actually paid.

Three end statuses are *scored*: the env decided the outcome (`success`, `failure`) or the step
cap did (`truncated`). The others say the episode never got a verdict: the lease went away
(`abandoned`), the env raised (`env_error`), the policy raised, timed out or gave no reply
(`policy_error`), the connection was lost (`transport_error`), or a store written before this
taxonomy cannot tell (`unknown`). Those are never turned into a reward of 0: every consumer
leaves them out of what it learns from or retries them (docs/protocol.md, "End statuses"), and
counts them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from enum import Enum
from functools import cache
from pathlib import Path


class EndStatus(str, Enum):
    SUCCESS = "success"
    FAILURE = "failure"
    TRUNCATED = "truncated"
    ABANDONED = "abandoned"
    ENV_ERROR = "env_error"
    POLICY_ERROR = "policy_error"
    TRANSPORT_ERROR = "transport_error"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return self.value


#: An episode that has not ended yet (the store's value while it runs; not an end status).
RUNNING = "running"
#: End statuses whose reward the env (or its step cap) decided: the only ones a trainer learns from.
SCORED = frozenset({EndStatus.SUCCESS, EndStatus.FAILURE, EndStatus.TRUNCATED})
#: End statuses without a verdict: retried or left out, and counted, never scored as 0.
UNSCORED = frozenset(set(EndStatus) - SCORED)
#: What a client may report about an episode when it closes the session: what only it can see.
CLIENT_REPORTED = frozenset({EndStatus.POLICY_ERROR, EndStatus.TRANSPORT_ERROR})
ALL_VALUES = tuple(s.value for s in EndStatus)


def is_scored(status: str) -> bool:
    """Whether an episode with this end status may be learned from (its reward is the env's)."""
    return status in _SCORED_VALUES


_SCORED_VALUES = frozenset(s.value for s in SCORED)


def scored_end(done: bool, truncated: bool, success: bool | None) -> str:
    """The end status of an episode the env finished: its verdict when it is done, else the cap's."""
    if done:
        return EndStatus.SUCCESS.value if success else EndStatus.FAILURE.value
    if truncated:
        return EndStatus.TRUNCATED.value
    return RUNNING


def count(statuses: Iterable[str]) -> dict[str, int]:
    """How many of each end status (every status of the taxonomy present, zeros included), so a
    table or metrics row always shows the unscored ones, even when there were none."""
    counts = dict.fromkeys(ALL_VALUES, 0)
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    return counts


@cache
def _legacy() -> Mapping[str, Mapping[str, str]]:
    with (Path(__file__).parent / "data" / "legacy_statuses.json").open() as f:
        data = json.load(f)
    return {k: v for k, v in data.items() if not k.startswith("_")}


def from_legacy(table: str, status: str | None, success: bool | None) -> str:
    """The taxonomy's value for a status written by an older release (`table`: "episodes" or
    "trajectories"). A value already in the taxonomy stays; an old "done" with a recorded
    success is a success; what the old value cannot tell becomes `unknown`, never `failure`."""
    if status in ALL_VALUES:
        return str(status)
    if status == "done" and success:
        return EndStatus.SUCCESS.value
    return _legacy()[table].get(status or "", EndStatus.UNKNOWN.value)
