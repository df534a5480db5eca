"""TRL: GRPO on any coevo env, through GRPOTrainer's `rollout_func` (TRL >= 0.24).

    rollout = CoevoRollout("http://127.0.0.1:8000")
    trainer = GRPOTrainer(model, reward_funcs=env_reward, train_dataset=rollout.dataset(limit=64),
                          rollout_func=rollout, args=GRPOConfig(...))

Each prompt of a batch is one episode on a leased coevo session: the model (the trainer's own,
unwrapped for generation) writes a reply, the env answers, until the episode ends, `max_turns`
replies were written or the completion budget (`max_completion_length`) is spent. The episode
is one completion; the env's turns are in it but masked out of the loss (`env_mask`), and its
reward is the env's total reward, handed to `env_reward` as a column. Why rollout_func and not
`environment_factory`: coevo envs take text actions, and environment_factory needs a model whose
chat template TRL can parse tool calls from; rollout_func works with any causal LM.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from coevo.client.errors import EnvClientError
from coevo.client.failures import describe, status_of
from coevo.client.http import EnvClient
from coevo.client.policies.base import Message
from coevo.models.tokenizers import stop_token_ids
from coevo.integrations.episode import EpisodeChat, EpisodeNotScored, Tally, env_prompt, opening
from coevo.integrations.turns import env_turn_ids, prompt_ids


class UnknownPrompt(KeyError):
    """A prompt that no dataset of this rollout produced: there is no task to play it on."""


def _key(messages: Sequence[Message]) -> str:
    return json.dumps([[m["role"], m["content"]] for m in messages])


@dataclass
class _Episode:
    #: None when no session could be leased (`refused` then holds how that attempt ended).
    chat: EpisodeChat | None
    task_id: str
    prompt_ids: list[int]
    completion_ids: list[int] = field(default_factory=list)
    env_mask: list[int] = field(default_factory=list)
    replies: int = 0
    open: bool = True
    refused: Tally = field(default_factory=Tally)

    @property
    def tally(self) -> Tally:
        return self.chat.tally if self.chat is not None else self.refused

    @property
    def live_chat(self) -> EpisodeChat:
        assert self.chat is not None, "an episode without a session is never open"
        return self.chat


class CoevoRollout:
    """A TRL `rollout_func` playing each prompt as an episode of a coevo env over HTTP."""

    def __init__(
        self,
        url_or_urls: str | Sequence[str],
        *,
        turn_tokens: int = 96,
        max_turns: int | None = None,
        client: EnvClient | None = None,
        retries: int = 2,
    ) -> None:
        self.client = client or EnvClient(url_or_urls)
        self.info = self.client.info()
        self.prompt = env_prompt(self.info)
        self.turn_tokens = turn_tokens
        self.max_turns = max_turns or self.info.max_steps
        self._tasks: dict[str, tuple[str, int]] = {}
        #: Every finished episode of the last call: task, replies, steps, the env's rewards, status.
        self.last_episodes: list[dict[str, Any]] = []
        #: Times an episode without the env's verdict (coevo.end_status) is played again before
        #: the call raises EpisodeNotScored: GRPO needs a reward for every prompt, and a made-up
        #: 0 would teach the policy from an env, policy or transport fault.
        self.retries = retries
        #: End statuses of every attempt so far (retried ones too): log them with the metrics.
        self.status_counts: Counter[str] = Counter()

    def dataset(self, split: str | None = None, *, limit: int = 64, offset: int = 0, seed: int = 0) -> Any:
        """A datasets.Dataset of the env's tasks: each row's prompt is the episode's opening turns."""
        from datasets import Dataset

        rows: dict[str, list[Any]] = {"prompt": [], "task_id": [], "seed": []}
        for task in self.client.tasks(split, offset, limit).tasks:
            with self.client.create(task_id=task.task_id, seed=seed) as session:
                messages = opening(self.prompt, session.observation, dict(session.info))
            self._tasks[_key(messages)] = (task.task_id, seed)
            rows["prompt"].append(messages)
            rows["task_id"].append(task.task_id)
            rows["seed"].append(seed)
        if not rows["prompt"]:
            raise ValueError(f"the {self.info.env} server has no tasks in split {split or self.info.default_split!r}")
        return Dataset.from_dict(rows)

    def __call__(self, prompts: list[list[Message]], trainer: Any) -> dict[str, Any]:
        tokenizer = getattr(trainer.processing_class, "tokenizer", trainer.processing_class)
        budget = int(trainer.max_completion_length)
        tasks = []
        for messages in prompts:
            task = self._tasks.get(_key(messages))
            if task is None:
                raise UnknownPrompt("a prompt not made by CoevoRollout.dataset(): build the train dataset with it")
            tasks.append(task)
        episodes: list[_Episode | None] = [None] * len(tasks)
        statuses: list[str] = []  # every attempt's end status, retried ones included
        again = list(range(len(tasks)))
        for _attempt in range(self.retries + 1):
            played = self._play([tasks[i] for i in again], trainer, tokenizer, budget)
            statuses += [e.tally.status for e in played]
            for i, episode in zip(again, played, strict=True):
                episodes[i] = episode
            again = [i for i, episode in zip(again, played, strict=True) if not episode.tally.scored]
            if not again:
                break
        self.status_counts.update(statuses)
        if again:
            failed = [episodes[i] for i in again]
            raise EpisodeNotScored(
                f"{len(failed)} episode(s) had no verdict from the env after {self.retries} retries: "
                + "; ".join(f"{e.task_id}: {e.tally.status} ({e.tally.error})" for e in failed if e)
            )
        done = [e for e in episodes if e is not None]
        self.last_episodes = [
            {"task_id": e.task_id, "replies": e.replies, "actions": list(e.tally.actions),
             "rewards": list(e.tally.rewards), "reward": e.tally.reward, "done": e.tally.done,
             "status": e.tally.status, "env_tokens": e.env_mask.count(0)}
            for e in done
        ]  # fmt: skip
        return {
            "prompt_ids": [e.prompt_ids for e in done],
            "completion_ids": [e.completion_ids for e in done],
            "logprobs": None,
            "env_mask": [e.env_mask for e in done],
            "env_reward": [e.tally.reward for e in done],
            "env_steps": [e.tally.steps for e in done],
        }

    def _play(self, tasks: list[tuple[str, int]], trainer: Any, tokenizer: Any, budget: int) -> list[_Episode]:
        """One attempt at each task, generated together; a session that cannot be leased ends
        its attempt with the failure's end status."""
        episodes: list[_Episode] = []
        try:
            for task_id, seed in tasks:
                try:
                    session = self.client.create(task_id=task_id, seed=seed)
                except EnvClientError as exc:
                    failed = Tally(status=status_of(exc).value, error=describe(exc))
                    episodes.append(_Episode(None, task_id, [], open=False, refused=failed))
                    continue
                chat = EpisodeChat(session, self.prompt)
                episodes.append(_Episode(chat, task_id, prompt_ids(tokenizer, chat.messages)))
            while live := [e for e in episodes if e.open]:
                self._turn(live, trainer, tokenizer, budget)
        finally:
            for episode in episodes:
                if episode.chat is not None:
                    episode.chat.close()
        return episodes

    def _turn(self, live: list[_Episode], trainer: Any, tokenizer: Any, budget: int) -> None:
        """One reply from every live episode, generated as one batch, then the env's answers."""
        import torch
        from trl.models import unwrap_model_for_generation

        stops = stop_token_ids(tokenizer)
        contexts = [e.prompt_ids + e.completion_ids for e in live]
        width = max(len(c) for c in contexts)
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else stops[0]
        input_ids = torch.tensor([[pad] * (width - len(c)) + c for c in contexts])
        attention = torch.tensor([[0] * (width - len(c)) + [1] * len(c) for c in contexts])
        room = max(budget - len(e.completion_ids) for e in live)
        sampling = {k: v for k, v in {"temperature": trainer.temperature, "top_p": trainer.top_p,
                                      "top_k": trainer.top_k, "min_p": trainer.min_p}.items() if v is not None}  # fmt: skip
        with unwrap_model_for_generation(trainer.model_wrapped, trainer.accelerator) as model, torch.no_grad():
            out = model.generate(
                input_ids=input_ids.to(model.device), attention_mask=attention.to(model.device),
                max_new_tokens=min(self.turn_tokens, room), do_sample=True, eos_token_id=stops, pad_token_id=pad,
                **sampling,
            )  # fmt: skip
        for episode, row in zip(live, out[:, width:].tolist()):
            new = row[: budget - len(episode.completion_ids)]
            stop_at = next((i for i, t in enumerate(new) if t in stops), None)
            if stop_at is not None:
                new = new[: stop_at + 1]
            stopped_with = tokenizer.decode(new[-1:]) if stop_at is not None else None
            episode.completion_ids += new
            episode.env_mask += [1] * len(new)
            episode.replies += 1
            user = episode.live_chat.reply(tokenizer.decode(new, skip_special_tokens=True))
            if episode.tally.over or episode.replies >= self.max_turns:
                episode.open = False
                episode.tally.cut()
                continue
            env_ids = env_turn_ids(tokenizer, episode.live_chat.messages[:-1], user, stopped_with=stopped_with)
            if len(episode.completion_ids) + len(env_ids) >= budget:
                episode.open = False  # no room left for another reply
                episode.tally.cut()
                continue
            episode.completion_ids += env_ids
            episode.env_mask += [0] * len(env_ids)


def env_reward(completions: list[Any], env_reward: list[float], **_: Any) -> list[float]:
    """GRPO reward function: the env's total reward for each episode (from CoevoRollout)."""
    return [float(r) for r in env_reward]


__all__ = ["CoevoRollout", "EpisodeNotScored", "UnknownPrompt", "env_reward"]
