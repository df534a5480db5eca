"""In-memory trajectories, and their AgentGym (AgentTraj) form.

A `Trajectory` is what one episode leaves behind on the agent's side: the full chat the policy
saw and wrote (thoughts included, which the server never sees), every env step, the outcome.
The AgentGym form is `{"item_id", "conversations": [{"from", "value", "loss"}], "reward",
"success"}` with "human"/"gpt" turns, `loss: None` on human turns, `False` on the scripted
acknowledgement and `True` on the agent's own replies — what AgentGym's trainers consume.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from coevo.client.policies.base import Message
from coevo.end_status import from_legacy, is_scored

#: Keys of the reset info that describe the task's kind, most specific first.
TASK_TYPE_KEYS = ("task_type", "category", "goal_type", "type", "level")
#: Reset-info keys too bulky or too volatile to keep with every stored trajectory.
_DROP_INFO_KEYS = frozenset({"messages", "available_actions", "functions"})


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode to run: an exact task, or a split and seed to pick one; `sample` tells the
    K samples of the same task apart (exploration draws several per instruction)."""

    env: str
    task_id: str | None = None
    split: str | None = None
    seed: int | None = None
    sample: int = 0


@dataclass
class Turn:
    """One agent round: the reply, the action read from it, and what the env answered.

    An unreadable reply has `action=None` and `valid=False`; the env was not stepped and the
    observation is the feedback the agent was shown.
    """

    reply: str
    action: str | None
    observation: str
    reward: float = 0.0
    done: bool = False
    truncated: bool = False
    valid: bool = True
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class Trajectory:
    env: str
    task_id: str
    split: str | None
    seed: int | None
    policy: str
    messages: list[Message]
    turns: list[Turn] = field(default_factory=list)
    sample: int = 0
    #: "running", then the end status (coevo.end_status): success | failure | truncated (scored)
    #: or abandoned | env_error | policy_error | transport_error (never scored, never learned from).
    status: str = "running"
    success: bool = False
    task_type: str | None = None
    task_info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    duration_s: float = 0.0
    #: Number of leading messages that are the scripted prompt (instruction, acknowledgement).
    prompt_messages: int = 2
    #: What ended it, finer than the status: env (the env's verdict or step cap), max_rounds
    #: (the client's round cap), invalid_replies, abstained, raised, timeout, server.
    end_reason: str | None = None
    #: The env's version and scoring mode (its server's options, coevo.score_mode) it was scored under.
    env_version: str | None = None
    score_mode: str | None = None

    def end(self, status: str, reason: str, error: str | None = None) -> None:
        """Set how the episode ended (`error`: what went wrong, for the unscored statuses)."""
        self.status, self.end_reason = str(status), reason
        if error is not None:
            self.error = error

    @property
    def scored(self) -> bool:
        """Whether the env (or a step cap) decided this episode: only those are learned from."""
        return is_scored(self.status)

    @property
    def reward(self) -> float:
        """Total env reward of the episode."""
        return float(sum(t.reward for t in self.turns))

    @property
    def steps(self) -> int:
        """Env steps taken (unreadable replies are rounds, not steps)."""
        return sum(1 for t in self.turns if t.valid)

    @property
    def rounds(self) -> int:
        return len(self.turns)

    @property
    def invalid_replies(self) -> int:
        return sum(1 for t in self.turns if not t.valid)

    @property
    def item_id(self) -> str:
        return f"{self.env}_{self.task_id}"

    def to_agentgym(self, item_id: str | None = None) -> dict[str, Any]:
        """The AgentTraj record AgentGym's BC and AgentEvol trainers read."""
        conversations: list[dict[str, Any]] = []
        for i, message in enumerate(self.messages):
            if message["role"] == "user":
                conversations.append({"from": "human", "loss": None, "value": message["content"]})
            elif message["role"] == "assistant":
                trained = i >= self.prompt_messages
                conversations.append({"from": "gpt", "loss": trained, "value": message["content"]})
        return {
            "item_id": item_id or self.item_id,
            "conversations": conversations,
            "reward": self.reward,
            "success": int(self.success),
            # Provenance (optional AgentTraj fields): how it ended and what scored it.
            "status": self.status,
            "env_version": self.env_version,
            "score_mode": self.score_mode,
        }

    def to_record(self) -> dict[str, Any]:
        """Everything about the episode as plain JSON-able data (what the SQL store keeps)."""
        record = asdict(self)
        record.update(reward=self.reward, steps=self.steps, rounds=self.rounds)
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Trajectory:
        data = {k: v for k, v in record.items() if k not in {"reward", "steps", "rounds"}}
        # A record of an older release: its status mapped to the taxonomy (unknown where it cannot tell).
        data["status"] = from_legacy("trajectories", data.get("status"), data.get("success"))
        data["turns"] = [Turn(**t) for t in data.get("turns", [])]
        data["messages"] = [dict(m) for m in data.get("messages", [])]
        return cls(**data)


def scored_only(trajectories: Iterable[Trajectory]) -> list[Trajectory]:
    """The episodes a trainer may learn from: those the env judged (success, failure,
    truncated). The others (coevo.end_status) are left out, never turned into a reward of 0:
    the one rule AgentEvol's data, GenEnv and evaluation apply."""
    return [t for t in trajectories if t.scored]


def task_type_of(info: Mapping[str, Any], meta: Mapping[str, Any] | None = None) -> str | None:
    """The task's kind from its reset info or catalogue entry (a game's task type, a benchmark's category...)."""
    for source in (info, meta or {}):
        for key in TASK_TYPE_KEYS:
            value = source.get(key)
            if value is not None and value != "":
                return str(value)
    return None


def slim_info(info: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in info.items() if k not in _DROP_INFO_KEYS}
