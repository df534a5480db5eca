"""Wire models: the JSON bodies of the env-server HTTP protocol.

The server validates with these and the client parses with them; neither side needs the
other's code. Field names are the protocol — changing one is a breaking change.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

PROTOCOL_VERSION = "1"

#: Largest seed (and any other client integer that reaches SQL or an RNG): a signed 64-bit
#: integer, the widest column both SQLite and PostgreSQL store.
MAX_INT64 = 2**63 - 1
#: Most task ids one GET /tasks page returns (422 beyond).
MAX_TASKS_PAGE = 1000
#: Longest task id and split name a request may name: the store's columns (a longer one was
#: accepted, then refused by PostgreSQL's varchar when its episode was written).
MAX_TASK_ID_CHARS = 256
MAX_SPLIT_CHARS = 64

#: Characters no request may carry (422 invalid_text): NUL, which PostgreSQL text cannot hold,
#: and lone UTF-16 surrogates, which no store encodes.
UNSENDABLE_CHARS = re.compile("[\x00\ud800-\udfff]")


def sendable_text(text: str) -> str:
    """Agent text as the protocol accepts it: each refused character becomes U+FFFD. A model's
    decoded reply can hold NUL (a byte-level token); sent as it is, the step would be refused
    and the rollout lost, where the env can judge the reply with the character marked."""
    return UNSENDABLE_CHARS.sub("\ufffd", text)


TaskIdText = Annotated[str, Field(max_length=MAX_TASK_ID_CHARS)]
SplitText = Annotated[str, Field(max_length=MAX_SPLIT_CHARS)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


#: The response header that names the replica serving a session (with 409 session_owned_elsewhere).
OWNER_HEADER = "X-Coevo-Owner"


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


class ThoughtRule(_Model):
    """One way an expert action is explained in a ReAct trajectory: when `pattern` matches the
    stripped action (re.match), the thought is `thought` formatted with the match's groups."""

    pattern: str
    thought: str

    @model_validator(mode="after")
    def _usable(self) -> ThoughtRule:
        """An env's bad rule fails when the env class loads, not in a client mid-rollout."""
        try:
            groups = re.compile(self.pattern).groups
        except re.error as exc:
            raise ValueError(f"pattern {self.pattern!r} is not a regular expression: {exc}") from None
        try:
            self.thought.format(*[""] * groups, action="")
        except (IndexError, KeyError, ValueError) as exc:
            raise ValueError(f"thought {self.thought!r} does not fit the pattern's {groups} groups: {exc}") from None
        return self


class ActionFold(_Model):
    """Shorter available-action lists: the actions that start with `prefix` become one `label`
    entry; `listed_last` actions go at the end, sorted (e.g. always-admissible commands)."""

    prefix: str
    label: str
    listed_last: list[str] = Field(default_factory=list)


#: What a reply with no readable "Action:" does (AgentPrompt.reply_without_action).
ReplyWithoutAction = Literal["ask_again", "step"]


class AgentPrompt(_Model):
    """How agents are prompted for an env and how their replies are read. An env declares it
    (`Env.agent_prompt`), /info serves it, and the client builds its prompts from it, so a new
    env needs no client code. The defaults are the generic prompt every env gets."""

    #: The instruction turn before the reply format; None: the generic one naming the action format.
    instruction: str | None = None
    #: Actions are one line (text-game commands); otherwise everything after "Action:" counts.
    single_line_action: bool = False
    #: Append the env's finite action set (info["available_actions"]) to each observation.
    show_available_actions: bool = True
    #: Explanations of expert actions (first match wins), for behavioural-cloning trajectories.
    expert_thoughts: list[ThoughtRule] = Field(default_factory=list)
    #: The thought when no rule matches; `{action}` stands for the stripped action.
    expert_thought: str = "I will take the next step towards the goal."
    #: Fold the available-action list (None: list every action).
    fold_actions: ActionFold | None = None
    #: What a reply with no readable "Action:" does: the generic rule shows the agent why and
    #: asks again ("ask_again"); "step" sends the whole reply to the env as the action, for an
    #: env whose original reads every reply whole and never asks again (BFCL's prompting
    #: evaluation decodes each model output once).
    reply_without_action: ReplyWithoutAction = "ask_again"

    @classmethod
    def from_file(cls, path: str | Path) -> AgentPrompt:
        """An env's prompt kept as a data file (JSON) beside its code."""
        return cls.model_validate_json(Path(path).read_text(encoding="utf-8"))


#: How an env's AgentGym-compatible routes answer: AgentGym's ALFWorld-like servers ("id"), its
#: WebShop-like ones ("env_idx"), or its search server ("env_idx_item": the session in
#: `env_idx`, the item index in `id`); see server/compat.py.
AgentGymRouteStyle = Literal["id", "env_idx", "env_idx_item"]


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
    #: The split trainers draw training tasks from when none is named: the env's `train_split`,
    #: else its default split (None from servers that predate it: use default_split).
    train_split: str | None = None
    #: How agents are prompted for this env (the generic prompt when the env declares none).
    agent_prompt: AgentPrompt = Field(default_factory=AgentPrompt)
    #: The response style of this env's AgentGym-compatible routes.
    agentgym_style: AgentGymRouteStyle = "id"
    #: The env options this server runs with, canonical ("key=value,..."; "" for the defaults):
    #: with env_version, what decides how its episodes are scored (coevo.score_mode).
    score_mode: str = ""


class TaskStats(_Model):
    """A task's difficulty for a policy tag, from the store: the episodes the env judged
    (success, failure, truncated) and how many succeeded, with the Wilson 95% interval."""

    policy: str | None = Field(description="The policy tag; null: every tag pooled")
    episodes: int
    successes: int
    success_rate: float
    ci95_low: float
    ci95_high: float


class TaskEntry(_Model):
    task_id: str
    split: str
    meta: dict[str, Any] = Field(default_factory=dict)
    #: Present on difficulty listings (GET /tasks with p_min, p_max, policy or min_episodes).
    stats: TaskStats | None = None


class TaskListResponse(_Model):
    split: str
    total: int
    offset: int
    tasks: list[TaskEntry]


# ---------------------------------------------------------------------------- sessions
class ResetRequest(_Model):
    task_id: TaskIdText | None = Field(None, description="Exact task; omit to pick one from seed/split")
    split: SplitText | None = Field(None, description="Split to pick from when task_id is omitted")
    # strict: JSON true and "7" are not seeds (lax mode read them as 1 and 7).
    seed: int | None = Field(None, ge=0, le=MAX_INT64, strict=True, description="Same seed, same task and episode")


class CreateSessionRequest(ResetRequest):
    # Recorded with every episode of the session (its resets and forks too), so stored episodes
    # can be filtered by who played them; the server does not interpret them.
    policy: str | None = Field(None, max_length=256, description="Tag of the policy playing (e.g. a model and version)")
    run: str | None = Field(None, max_length=256, description="Name of the run this session belongs to")


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


#: End statuses a client may report when it closes a session (coevo.end_status.CLIENT_REPORTED):
#: what only the client sees. The server records the others itself.
ReportedStatus = Literal["policy_error", "transport_error"]


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
    owner: str | None = Field(
        None,
        description="With a 409 session_owned_elsewhere: the address of the replica that serves the "
        "session, as the X-Coevo-Owner header gives it to a single request",
    )


class BatchStepResponse(_Model):
    results: list[BatchStepResult]
