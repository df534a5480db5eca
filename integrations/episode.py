"""One coevo episode as a chat: the env's prompt, the agent's replies in, the next user turn out.

The trainer adapters (TRL, veRL, verifiers) differ in who generates and how tokens are kept,
not in how an episode is played; this is the playing part, shared, and the same as coevo's own
rollouts (client/rollout.py): the env's prompt from its /info, ReAct replies read by the env's
rules (EnvPrompt.read), an unreadable reply answered with the env's format hint without stepping
the env.

An episode the server could not finish (the env raised, the lease is gone, the connection was
lost) ends with that end status (coevo.end_status) instead of raising mid-batch; its tally is
then not `scored`, and the adapters retry it or refuse to score it (`EpisodeNotScored`), never
hand its reward on as a 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from coevo import wire
from coevo.client.errors import EnvClientError
from coevo.client.failures import describe, status_of
from coevo.client.http import AsyncSession, Session
from coevo.client.policies.base import Message
from coevo.client.policies.parsing import canonical_action
from coevo.client.policies.prompts import EnvPrompt, prompt_for
from coevo.end_status import CLIENT_REPORTED, RUNNING, EndStatus, is_scored, scored_end
from coevo.store.outcome import episode_success


class EpisodeNotScored(RuntimeError):
    """An episode still had no verdict from the env after its retries: the adapter refuses to
    give its trainer a reward for it (a 0 would teach the policy from an infrastructure fault)."""


def env_prompt(info: wire.InfoResponse) -> EnvPrompt:
    """The prompt coevo's own policies use for this env (dedicated, or built from /info)."""
    return prompt_for(info.env, info.action_format, info.action_example)


def opening(prompt: EnvPrompt, observation: str, info: dict[str, Any]) -> list[Message]:
    """The conversation before the agent's first reply: instruction, acknowledgement, first observation."""
    return [*prompt.start(), {"role": "user", "content": prompt.render_observation(observation, info, first=True)}]


@dataclass
class Tally:
    """What an episode earned so far: the env's rewards, its steps and how it ended."""

    reward: float = 0.0
    steps: int = 0
    invalid_replies: int = 0
    done: bool = False
    truncated: bool = False
    rewards: list[float] = field(default_factory=list)
    #: The actions the env was stepped with, in order (rewards[i] is actions[i]'s).
    actions: list[str] = field(default_factory=list)
    #: "running", then the end status (coevo.end_status); `error` says what went wrong.
    status: str = RUNNING
    error: str | None = None

    @property
    def over(self) -> bool:
        return self.done or self.truncated or self.status != RUNNING

    def cut(self) -> None:
        """The adapter ends the episode at its own cap (turns, token budget): like the env's
        step cap, a truncation, scored with what the env paid so far."""
        if self.status == RUNNING:
            self.status = EndStatus.TRUNCATED.value

    @property
    def scored(self) -> bool:
        """Whether the env decided this episode (only then is `reward` a reward)."""
        return is_scored(self.status)


@dataclass(frozen=True)
class ReadReply:
    """A reply turned into the env action to send, or the feedback to give instead."""

    action: str | None
    feedback: str | None


def read_reply(prompt: EnvPrompt, reply: str, info: dict[str, Any]) -> ReadReply:
    parsed = prompt.read(reply)
    if not parsed.ok:
        return ReadReply(None, prompt.render_invalid(parsed.error or "unreadable reply", info))
    return ReadReply(canonical_action(parsed.action or "", info.get("available_actions")), None)


def refused(exc: EnvClientError) -> bool:
    """The server refused the action itself (422: e.g. a NUL byte a sampled reply can hold): the
    agent's fault, answered like an unreadable reply; anything else is the caller's problem."""
    return exc.status == 422 and exc.code == "invalid_request"


def _after_step(prompt: EnvPrompt, tally: Tally, action: str, result: wire.StepResponse) -> tuple[str, dict[str, Any]]:
    tally.actions.append(action)
    tally.reward += result.reward
    tally.rewards.append(result.reward)
    tally.steps += 1
    tally.done, tally.truncated = result.done, result.truncated
    info = dict(result.info)
    if tally.done or tally.truncated:
        success = episode_success(tally.done, tally.truncated, info, result.reward)
        tally.status = scored_end(tally.done, tally.truncated, bool(success))
    return prompt.render_observation(result.observation, {} if tally.over else info), info


class _Chat:
    """What both chats share: the conversation, the reply's reading and the turn's bookkeeping;
    the subclasses only make the step call, sync or async."""

    def __init__(self, session: Session | AsyncSession, prompt: EnvPrompt) -> None:
        self.prompt = prompt
        self.info: dict[str, Any] = dict(session.info)
        self.messages: list[Message] = opening(prompt, session.observation, self.info)
        self.tally = Tally()

    def _read(self, text: str) -> ReadReply:
        text = text.strip()
        self.messages.append({"role": "assistant", "content": text})
        return read_reply(self.prompt, text, self.info)

    def _stepped(self, action: str, result: wire.StepResponse) -> str:
        user, self.info = _after_step(self.prompt, self.tally, action, result)
        return self._answer(user)

    def _refused(self, exc: EnvClientError) -> str:
        if not refused(exc):
            # The server could not go on: the episode ends unscored, the conversation with it.
            self.tally.status, self.tally.error = status_of(exc).value, describe(exc)
            return ""
        return self._unreadable(self.prompt.render_invalid(f"the server refused it: {exc.args[0]}", self.info))

    def _unreadable(self, feedback: str | None) -> str:
        self.tally.invalid_replies += 1
        return self._answer(feedback or "")

    def _report(self) -> tuple[str | None, str | None]:
        """What the close tells the server: the end status only the client saw, if any."""
        return (self.tally.status, self.tally.error) if self.tally.status in CLIENT_REPORTED else (None, None)

    def _answer(self, user: str) -> str:
        self.messages.append({"role": "user", "content": user})
        return user


class EpisodeChat(_Chat):
    """A leased session played through chat turns (sync client: TRL's rollout runs in the trainer's thread)."""

    def __init__(self, session: Session, prompt: EnvPrompt) -> None:
        super().__init__(session, prompt)
        self.session = session

    def reply(self, text: str) -> str:
        """Take the agent's reply; return the next user turn (the env's answer, or format feedback)."""
        read = self._read(text)
        if read.action is None:
            return self._unreadable(read.feedback)
        try:
            result = self.session.step(read.action)
        except EnvClientError as exc:
            return self._refused(exc)
        return self._stepped(read.action, result)

    def close(self) -> None:
        try:
            self.session.close(*self._report())
        except EnvClientError:
            pass  # the lease expires on its own (its episode then ends abandoned)


class AsyncEpisodeChat(_Chat):
    """Async twin of EpisodeChat, for veRL's agent loops and verifiers' rollouts."""

    def __init__(self, session: AsyncSession, prompt: EnvPrompt) -> None:
        super().__init__(session, prompt)
        self.session = session

    async def reply(self, text: str) -> str:
        read = self._read(text)
        if read.action is None:
            return self._unreadable(read.feedback)
        try:
            result = await self.session.step(read.action)
        except EnvClientError as exc:
            return self._refused(exc)
        return self._stepped(read.action, result)

    async def close(self) -> None:
        try:
            await self.session.close(*self._report())
        except EnvClientError:
            pass  # the lease expires on its own (its episode then ends abandoned)
