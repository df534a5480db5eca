"""The policy protocol: a batch of conversations in, one assistant message per conversation out.

Every agent — a local transformers model, an OpenAI-compatible endpoint, an env's privileged
expert — answers through this one interface, so the rollout engine, `coevo eval` and the
AgentEvol trainer never care which kind they drive. Calls are async: remote policies overlap
their requests, and local models run in a worker thread so the event loop keeps stepping envs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, TypedDict

if TYPE_CHECKING:
    from coevo.client.http import AsyncSession
    from coevo.client.policies.prompts import EnvPrompt


class Message(TypedDict):
    """One chat turn, in the shape every chat template and chat-completions API accepts."""

    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class Sampling:
    """How to decode. temperature 0 means greedy (evaluation); > 0 samples (exploration)."""

    temperature: float = 0.0
    top_p: float = 1.0
    #: Sample among the k likeliest tokens only (0: no limit).
    top_k: int = 0
    #: Drop tokens less likely than min_p times the likeliest one (0: keep all).
    min_p: float = 0.0
    max_new_tokens: int = 128
    #: Seed for sampling; None draws fresh randomness.
    seed: int | None = None

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0.0

    def but(self, **changes: Any) -> Sampling:
        return replace(self, **changes)


@dataclass
class PolicyRequest:
    """One conversation that needs its next assistant message.

    `session` is the live env session the conversation belongs to. Ordinary policies ignore it;
    privileged ones (the expert) ask the server about the true state through it.
    """

    messages: list[Message]
    env: str
    session: AsyncSession | None = None
    #: The latest observation's info (task text, available actions, ...), for policies that use it.
    info: Mapping[str, Any] = field(default_factory=dict)
    #: The env's prompt (how replies are formatted and parsed); None: the env's default prompt.
    prompt: EnvPrompt | None = None


class Policy(ABC):
    """Maps conversations to assistant messages.

    `batched` tells the rollout engine whether gathering concurrent requests into one call pays
    (a local model: one forward pass for many prompts) or whether each request should go out
    on its own at once (remote endpoints batch on their side; the expert asks a server).
    """

    name: str = "policy"
    batched: bool = False
    #: Most requests one `act` call receives when `batched`.
    max_batch_size: int = 1

    def __init__(self, sampling: Sampling | None = None) -> None:
        self.sampling = sampling or Sampling()
        #: EnvPrompt fields this policy must be prompted with (a trained model's prompt settings).
        self.prompt_options: dict[str, Any] = {}

    @abstractmethod
    async def act(self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None) -> list[str | None]:
        """The next assistant message of each conversation, in order.

        None means the policy has nothing to say for that conversation (the expert sees no
        way forward); the engine then ends the episode rather than inventing a move.
        """

    async def end_episode(self, session_id: str) -> None:
        """The episode played in `session_id` is over: drop anything kept for it (KV caches)."""

    async def aclose(self) -> None:
        """Release connections, threads or models."""

    def cancel(self) -> None:
        """Abandon work in progress as soon as possible (SIGTERM, Ctrl-C); safe from any thread.
        Local models stop decoding at the next token; others have nothing long-running to stop."""

    def describe(self) -> dict[str, Any]:
        """A JSON-able description for results files and the store."""
        return {"name": self.name}
