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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from coevo.client.http import EnvClient
from coevo.client.policies.base import Message
from coevo.models.tokenizers import stop_token_ids
from coevo.integrations.episode import EpisodeChat, env_prompt, opening
from coevo.integrations.turns import env_turn_ids, prompt_ids


class UnknownPrompt(KeyError):
    """A prompt that no dataset of this rollout produced: there is no task to play it on."""


def _key(messages: Sequence[Message]) -> str:
    return json.dumps([[m["role"], m["content"]] for m in messages])


@dataclass
class _Episode:
    chat: EpisodeChat
    task_id: str
    prompt_ids: list[int]
    completion_ids: list[int] = field(default_factory=list)
    env_mask: list[int] = field(default_factory=list)
    replies: int = 0
    open: bool = True


class CoevoRollout:
    """A TRL `rollout_func` playing each prompt as an episode of a coevo env over HTTP."""

    def __init__(
        self,
        url_or_urls: str | Sequence[str],
        *,
        turn_tokens: int = 96,
        max_turns: int | None = None,
        client: EnvClient | None = None,
    ) -> None:
        self.client = client or EnvClient(url_or_urls)
        self.info = self.client.info()
        self.prompt = env_prompt(self.info)
        self.turn_tokens = turn_tokens
        self.max_turns = max_turns or self.info.max_steps
        self._tasks: dict[str, tuple[str, int]] = {}
        #: Every finished episode of the last call: task, replies, steps, the env's rewards.
        self.last_episodes: list[dict[str, Any]] = []

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
        episodes: list[_Episode] = []
        try:
            for messages in prompts:
                task = self._tasks.get(_key(messages))
                if task is None:
                    raise UnknownPrompt("a prompt not made by CoevoRollout.dataset(): build the train dataset with it")
                chat = EpisodeChat(self.client.create(task_id=task[0], seed=task[1]), self.prompt)
                episodes.append(_Episode(chat, task[0], prompt_ids(tokenizer, chat.messages)))
            while live := [e for e in episodes if e.open]:
                self._turn(live, trainer, tokenizer, budget)
        finally:
            for episode in episodes:
                episode.chat.close()
        self.last_episodes = [
            {"task_id": e.task_id, "replies": e.replies, "actions": list(e.chat.tally.actions),
             "rewards": list(e.chat.tally.rewards), "reward": e.chat.tally.reward, "done": e.chat.tally.done,
             "env_tokens": e.env_mask.count(0)}
            for e in episodes
        ]  # fmt: skip
        return {
            "prompt_ids": [e.prompt_ids for e in episodes],
            "completion_ids": [e.completion_ids for e in episodes],
            "logprobs": None,
            "env_mask": [e.env_mask for e in episodes],
            "env_reward": [e.chat.tally.reward for e in episodes],
            "env_steps": [e.chat.tally.steps for e in episodes],
        }

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
            user = episode.chat.reply(tokenizer.decode(new, skip_special_tokens=True))
            if episode.chat.tally.over or episode.replies >= self.max_turns:
                episode.open = False
                continue
            env_ids = env_turn_ids(tokenizer, episode.chat.messages[:-1], user, stopped_with=stopped_with)
            if len(episode.completion_ids) + len(env_ids) >= budget:
                episode.open = False  # no room left for another reply
                continue
            episode.completion_ids += env_ids
            episode.env_mask += [0] * len(env_ids)


def env_reward(completions: list[Any], env_reward: list[float], **_: Any) -> list[float]:
    """GRPO reward function: the env's total reward for each episode (from CoevoRollout)."""
    return [float(r) for r in env_reward]


__all__ = ["CoevoRollout", "UnknownPrompt", "env_reward"]
