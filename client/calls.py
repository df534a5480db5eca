"""The protocol's requests as data: one function per route, shared by the sync and async clients.

Each returns a `Call` (method, path, body, response model, idempotence); the clients only know
how to send a Call and parse its answer, so the two never drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from coevo import wire


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    model: type[BaseModel] | None
    body: dict[str, Any] | None = None
    params: dict[str, Any] | None = None
    idempotent: bool = False


#: The longest error text a close reports (the server refuses longer ones).
MAX_REPORTED_ERROR = 2000


def _session_body(task_id: str | None, split: str | None, seed: int | None) -> dict[str, Any]:
    return {k: v for k, v in {"task_id": task_id, "split": split, "seed": seed}.items() if v is not None}


def health() -> Call:
    return Call("GET", "/health", wire.HealthResponse, idempotent=True)


def info() -> Call:
    return Call("GET", "/info", wire.InfoResponse, idempotent=True)


def tasks(
    split: str | None,
    offset: int,
    limit: int,
    *,
    p_min: float | None = None,
    p_max: float | None = None,
    policy: str | None = None,
    min_episodes: int | None = None,
) -> Call:
    """A page of a split's tasks; with any difficulty filter, only the tasks whose estimated
    success rate for `policy` lies in [p_min, p_max] over at least `min_episodes` judged episodes."""
    params: dict[str, Any] = {"offset": offset, "limit": limit}
    if split is not None:
        params["split"] = split
    wanted = {"p_min": p_min, "p_max": p_max, "policy": policy, "min_episodes": min_episodes}
    params.update({k: v for k, v in wanted.items() if v is not None})
    return Call("GET", "/tasks", wire.TaskListResponse, params=params, idempotent=True)


def create(
    task_id: str | None, split: str | None, seed: int | None, policy: str | None = None, run: str | None = None
) -> Call:
    # Creating twice is harmless only in the sense that nothing is lost; a duplicate lease simply
    # expires. It still is not retried on lost answers, so capacity is not wasted silently.
    body = _session_body(task_id, split, seed)
    body.update({k: v for k, v in {"policy": policy, "run": run}.items() if v is not None})
    return Call("POST", "/sessions", wire.SessionResponse, body=body)


def reset(session_id: str, task_id: str | None, split: str | None, seed: int | None) -> Call:
    return Call("POST", f"/sessions/{session_id}/reset", wire.SessionResponse, body=_session_body(task_id, split, seed))


def step(session_id: str, action: str) -> Call:
    return Call("POST", f"/sessions/{session_id}/step", wire.StepResponse, body={"action": wire.sendable_text(action)})


def state(session_id: str) -> Call:
    return Call("GET", f"/sessions/{session_id}", wire.SessionState, idempotent=True)


def fork(session_id: str) -> Call:
    return Call("POST", f"/sessions/{session_id}/fork", wire.SessionResponse)


def expert(session_id: str) -> Call:
    return Call("GET", f"/sessions/{session_id}/expert", wire.ExpertActionResponse, idempotent=True)


def close(session_id: str, status: str | None = None, error: str | None = None) -> Call:
    """`status`: why the client leaves an unfinished episode (policy_error, transport_error),
    recorded as its end status with `error`; the server answers 422 to any other."""
    # DELETE is idempotent on the wire: a repeat answers 404, which close() treats as done.
    params = {k: v for k, v in {"status": status, "error": error and error[:MAX_REPORTED_ERROR]}.items() if v}
    return Call("DELETE", f"/sessions/{session_id}", wire.ClosedResponse, params=params or None, idempotent=True)


def batch_step(items: list[tuple[str, str]]) -> Call:
    body = {"items": [{"session_id": s, "action": wire.sendable_text(a)} for s, a in items]}
    return Call("POST", "/batch/step", wire.BatchStepResponse, body=body)
