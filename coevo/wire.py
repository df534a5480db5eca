"""Wire models: the JSON bodies of the env-server HTTP protocol.

The server validates with these and the client parses with them; neither side needs the
other's code. Field names are the protocol — changing one is a breaking change.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSION = "1"

#: Largest seed (and any other client integer that reaches SQL or an RNG): a signed 64-bit
#: integer, the widest column both SQLite and PostgreSQL store.
MAX_INT64 = 2**63 - 1
#: Most task ids one GET /tasks page returns (422 beyond).
MAX_TASKS_PAGE = 1000


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorDetail(_Model):
    code: str = Field(description="Stable machine-readable code, e.g. 'session_not_found'")
    message: str


class ErrorBody(_Model):
    """Every non-2xx response carries this body."""

    error: ErrorDetail


# ---------------------------------------------------------------------------- server metadata
class HealthResponse(_Model):
    status: str = "ok"
    env: str
    sessions: int = Field(description="Live sessions")
    capacity: int = Field(description="Most live sessions this server accepts")


class InfoResponse(_Model):
    env: str
    env_version: str
    protocol_version: str = PROTOCOL_VERSION
    server_version: str
    action_format: str
    max_steps: int
    splits: dict[str, int]
    default_split: str
    #: A worked example for agents' prompts: [thought, action] (empty strings: none).
    action_example: list[str] = Field(default_factory=lambda: ["", ""])
    #: Evaluation splits this server has (never trained on); the first is the env's default.
    heldout_splits: list[str] = Field(default_factory=list)


class TaskEntry(_Model):
    task_id: str
    split: str
    meta: dict[str, Any] = Field(default_factory=dict)


class TaskListResponse(_Model):
    split: str
    total: int
    offset: int
    tasks: list[TaskEntry]


# ---------------------------------------------------------------------------- sessions
class CreateSessionRequest(_Model):
    task_id: str | None = Field(None, description="Exact task; omit to pick one from seed/split")
    split: str | None = Field(None, description="Split to pick from when task_id is omitted")
    # strict: JSON true and "7" are not seeds (lax mode read them as 1 and 7).
    seed: int | None = Field(None, ge=0, le=MAX_INT64, strict=True,
                             description="Same seed, same task and episode")


class ResetRequest(CreateSessionRequest):
    pass


class SessionResponse(_Model):
    """Answer to create and reset: the first observation of an episode."""

    session_id: str
    observation: str
    info: dict[str, Any] = Field(default_factory=dict)


class StepRequest(_Model):
    action: str


class StepResponse(_Model):
    session_id: str
    observation: str
    reward: float
    done: bool
    truncated: bool = False
    info: dict[str, Any] = Field(default_factory=dict)


class SessionState(_Model):
    session_id: str
    env: str
    task_id: str | None
    split: str | None
    seed: int | None
    steps: int
    done: bool
    total_reward: float
    created_at: float
    last_used_at: float
    last_observation: str | None = None


class ClosedResponse(_Model):
    session_id: str
    closed: bool = True


class ExpertActionResponse(_Model):
    session_id: str
    action: str | None


class AdminResponse(_Model):
    """Answer to POST /admin/{command}: what the env's admin hook returned."""

    command: str
    result: dict[str, Any] = Field(default_factory=dict)


# ---------------------------------------------------------------------------- batch
class BatchStepItem(_Model):
    session_id: str
    action: str


class BatchStepRequest(_Model):
    items: list[BatchStepItem] = Field(max_length=4096)


class BatchStepResult(_Model):
    """One item of a batch: a step result, or an error — never both."""

    session_id: str
    ok: bool
    result: StepResponse | None = None
    error: ErrorDetail | None = None
    status: int = Field(200, description="The HTTP status this item would have had alone")


class BatchStepResponse(_Model):
    results: list[BatchStepResult]
