"""A local transformers model as a policy: batched generation with the tokenizer's chat template.

Prompts are left-padded so one `generate` call decodes a whole round of episodes. A reply
stops at the model's end-of-turn token, or as soon as its action line is complete for
one-line-action envs, or when the model starts inventing the env's next observation — decode
steps are the cost on a CPU, so none are spent on text the parser would throw away.

Multi-turn prompts grow by one observation and one reply per round, so re-reading the whole
history every round would dominate the cost. With `prefix_cache` (the default) each episode
keeps its KV cache between rounds: a round first extends every episode's cache by just its new
tokens, then the caches are left-padded into one batch cache and the round is decoded in a
single batched `generate`. The result is identical to recomputing everything (tested).

Long episodes outgrow a small model's context; `max_prompt_tokens` keeps the instruction, the
first observation (which states the task) and as many of the latest turns as fit, dropping old
turns in blocks so that the cached prefix stays valid for several rounds after a cut.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coevo.client.policies.base import Message, Policy, PolicyRequest, Sampling
from coevo.client.policies.prompts import prompt_for

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

# OpenMP threads that spin while waiting collapse throughput when the CPU is shared (a 135M
# model decoded 6x slower on 2 busy cores); passive waiting costs nothing when it is not.
# Only effective if set before torch is first imported, which this module does lazily.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

#: Written next to a trained checkpoint: how its prompts must look (see Policy.prompt_options).
AGENT_FILE = "coevo_agent.json"

#: ChatML, for tokenizers that come without a chat template (e.g. tiny test tokenizers).
CHATML_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] "
    "+ '<|im_end|>' + '\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

_ACTION_LINE_DONE = re.compile(r"action[ \t*_]*[:：][ \t]*\S[^\n]*\n", re.IGNORECASE)
_INVENTED_TURN = re.compile(r"\n[ \t]*(?:observation|user)[ \t]*:", re.IGNORECASE)


def fit_messages(
    messages: list[Message],
    count_tokens: Callable[[list[Message]], int],
    budget: int,
    keep_head: int,
    *,
    dropped: int = 0,
    target: int | None = None,
) -> tuple[list[Message], int]:
    """Drop the oldest (assistant, user) turn pairs after the first `keep_head` messages so the
    prompt fits `budget` tokens; the latest observation always stays.

    `dropped` pairs are dropped to begin with (what the previous round of this episode dropped,
    so its cached prefix still matches); when more must go, enough are dropped to get under
    `target` (default `budget`), leaving room for the next rounds. Returns the messages and the
    number of pairs dropped.
    """
    head, tail = messages[:keep_head], messages[keep_head:]
    # tail alternates assistant/user and ends with the user turn that needs an answer
    most = max(0, (len(tail) - 1) // 2)  # pairs we may drop
    dropped = min(dropped, most)
    if count_tokens(head + tail[2 * dropped :]) <= budget:
        return head + tail[2 * dropped :], dropped
    goal = budget if target is None else min(target, budget)
    lo, hi, best = dropped + 1, most, most
    while lo <= hi:  # fewest dropped pairs that reach the goal
        mid = (lo + hi) // 2
        if count_tokens(head + tail[2 * mid :]) <= goal:
            best, hi = mid, mid - 1
        else:
            lo = mid + 1
    return head + tail[2 * best :], best


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


@dataclass
class _CachedPrefix:
    """One episode's KV cache and the tokens it holds."""

    ids: list[int]
    cache: Any


class _StopOnReActEnd:
    """Stops each row once its reply is over (see module docstring); rows are independent."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, prompt_len: int, single_line: list[bool]) -> None:
        self.tokenizer, self.prompt_len, self.single_line = tokenizer, prompt_len, single_line

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs: Any) -> torch.BoolTensor:
        import torch

        texts = self.tokenizer.batch_decode(input_ids[:, self.prompt_len :], skip_special_tokens=True)
        done = [
            bool(_INVENTED_TURN.search(t)) or (one and bool(_ACTION_LINE_DONE.search(t)))
            for t, one in zip(texts, self.single_line)
        ]
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def load_model(
    path: str | Path, *, device: str | None = None, dtype: str | None = None
) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """A causal LM and its tokenizer from a local directory (fp32 on CPU, bf16 on GPU by default)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # a bar per load clutters every command's output
    device = device or default_device()
    if dtype is None:
        torch_dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    else:
        torch_dtype = getattr(torch, dtype)
    tokenizer = AutoTokenizer.from_pretrained(str(path))
    model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch_dtype).to(device)
    model.eval()
    return model, prepare_tokenizer(tokenizer)


def prepare_tokenizer(tokenizer: PreTrainedTokenizerBase) -> PreTrainedTokenizerBase:
    """Left padding, a pad token, and a chat template — what batched chat generation needs."""
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if not tokenizer.chat_template:
        tokenizer.chat_template = CHATML_TEMPLATE
    return tokenizer


def stop_token_ids(tokenizer: PreTrainedTokenizerBase) -> list[int]:
    """End-of-sequence plus the chat template's end-of-turn token when it has one."""
    ids = {tokenizer.eos_token_id} if tokenizer.eos_token_id is not None else set()
    for token in ("<|im_end|>", "<|eot_id|>", "<|end|>", "<end_of_turn>"):
        token_id = tokenizer.convert_tokens_to_ids(token)
        if isinstance(token_id, int) and token_id != tokenizer.unk_token_id and token_id >= 0:
            ids.add(token_id)
    return sorted(ids)


class TransformersPolicy(Policy):
    """Generates replies with a local model; `model` is a directory or a loaded (model, tokenizer)."""

    batched = True

    def __init__(
        self,
        model: str | Path | tuple[PreTrainedModel, PreTrainedTokenizerBase],
        *,
        name: str | None = None,
        sampling: Sampling | None = None,
        max_batch_size: int = 16,
        max_prompt_tokens: int = 2048,
        prefix_cache: bool = True,
        max_cached_episodes: int = 256,
        device: str | None = None,
        dtype: str | None = None,
    ) -> None:
        super().__init__(sampling)
        if isinstance(model, tuple):
            self.model, tokenizer = model
            self.tokenizer = prepare_tokenizer(tokenizer)
            self.name = name or "model"
        else:
            self.model, self.tokenizer = load_model(model, device=device, dtype=dtype)
            self.name = name or Path(model).name
            agent_file = Path(model) / AGENT_FILE
            if agent_file.is_file():
                self.prompt_options = dict(json.loads(agent_file.read_text()).get("prompt_options", {}))
        self.max_batch_size = max_batch_size
        self.max_prompt_tokens = max_prompt_tokens
        self.prefix_cache = prefix_cache
        self.max_cached_episodes = max_cached_episodes
        self._stop_ids = stop_token_ids(self.tokenizer)
        self._lock = threading.Lock()  # guards the prefix table
        self._busy = threading.Lock()  # one generate at a time on the model
        self._prefixes: OrderedDict[str, _CachedPrefix] = OrderedDict()
        #: Old turn pairs each episode's prompt drops (kept stable so prompts only grow between cuts).
        self._dropped: OrderedDict[str, int] = OrderedDict()
        params = inspect.signature(self.model.forward).parameters
        self._cache_kw = "cache" if "cache" in params else "past_key_values"
        self._keep_kw = next((k for k in ("logits_to_keep", "num_logits_to_keep") if k in params), None)

    # ---------------------------------------------------------------- prompts
    def render(self, messages: list[Message]) -> str:
        return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    def count_tokens(self, messages: list[Message]) -> int:
        return len(self.encode(self.render(messages)))

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def prompt_ids(self, request: PolicyRequest, dropped: int = 0) -> tuple[list[int], int]:
        """The prompt's tokens (old turns dropped to fit the budget) and how many pairs were dropped."""
        keep_head = min(3, len(request.messages))
        messages, dropped = fit_messages(
            request.messages, self.count_tokens, self.max_prompt_tokens, keep_head,
            dropped=dropped, target=(3 * self.max_prompt_tokens) // 4,
        )  # fmt: skip
        ids = self.encode(self.render(messages))
        return ids[-self.max_prompt_tokens :], dropped  # a single huge turn: keep its end

    def release(self, key: str) -> None:
        """Forget an episode's cached prefix and prompt cut (called when its episode ends)."""
        with self._lock:
            self._prefixes.pop(key, None)
            self._dropped.pop(key, None)

    # ---------------------------------------------------------------- prefix cache
    def _new_cache(self) -> Any:
        from transformers import DynamicCache

        return DynamicCache()

    def _extend(self, prefix: _CachedPrefix | None, ids: list[int]) -> Any:
        """A cache holding all of `ids` but the last token, reusing what `prefix` already holds."""
        import torch

        target = len(ids) - 1
        if prefix is None:
            cache, have = self._new_cache(), 0
        else:
            cache = prefix.cache
            have = min(_common_prefix(prefix.ids, ids), target)
            excess = cache.get_seq_length() - have
            if excess > 0:
                cache.crop(-excess)
        if target > have:
            kwargs: dict[str, Any] = {self._cache_kw: cache, "use_cache": True}
            if self._keep_kw:
                kwargs[self._keep_kw] = 1
            self.model(input_ids=torch.tensor([ids[have:target]], device=self.model.device), **kwargs)
        return cache

    def _merge(self, caches: list[Any], pads: list[int]) -> Any:
        """One batch cache from per-episode caches, left-padded with zeros (masked out)."""
        import torch

        merged = self._new_cache()
        for layer in range(len(caches[0].layers)):
            keys, values = [], []
            for cache, pad in zip(caches, pads):
                k, v = cache.layers[layer].keys, cache.layers[layer].values
                if pad:
                    zeros = torch.zeros(k.shape[0], k.shape[1], pad, k.shape[3], dtype=k.dtype, device=k.device)
                    k, v = torch.cat([zeros, k], dim=2), torch.cat([zeros, v], dim=2)
                keys.append(k)
                values.append(v)
            merged.update(torch.cat(keys, dim=0), torch.cat(values, dim=0), layer)
        return merged

    def _split(self, merged: Any, out: Any, pads: list[int]) -> list[_CachedPrefix]:
        """Per-episode caches back out of the batch cache, padding removed."""
        from transformers import DynamicCache

        length = merged.get_seq_length()
        prefixes = []
        for row, pad in enumerate(pads):
            cache = DynamicCache()
            for layer in range(len(merged.layers)):
                k = merged.layers[layer].keys[row : row + 1, :, pad:length].clone()
                v = merged.layers[layer].values[row : row + 1, :, pad:length].clone()
                cache.update(k, v, layer)
            prefixes.append(_CachedPrefix(out[row, pad:length].tolist(), cache))
        return prefixes

    # ---------------------------------------------------------------- generation
    def generate(self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None) -> list[str]:
        """Blocking batched generation (the async `act` runs this in a worker thread)."""
        with self._busy:
            return self._generate(requests, sampling)

    def _generate(self, requests: Sequence[PolicyRequest], sampling: Sampling | None) -> list[str]:
        import torch

        sampling = sampling or self.sampling
        keys = [r.session.session_id if r.session is not None else None for r in requests]
        with self._lock:
            previous = [self._prefixes.pop(k, None) if (k and self.prefix_cache) else None for k in keys]
            dropped = [self._dropped.get(k, 0) if k else 0 for k in keys]
        prompts = [self.prompt_ids(r, d) for r, d in zip(requests, dropped)]
        width = max(len(ids) for ids, _ in prompts)
        pads = [width - len(ids) for ids, _ in prompts]
        pad_id = self.tokenizer.pad_token_id
        device = self.model.device
        input_ids = torch.tensor([[pad_id] * p + ids for (ids, _), p in zip(prompts, pads)], device=device)
        attention_mask = torch.tensor([[0] * p + [1] * len(ids) for (ids, _), p in zip(prompts, pads)], device=device)
        single_line = [(r.prompt or prompt_for(r.env)).single_line_action for r in requests]
        kwargs: dict[str, Any] = dict(
            max_new_tokens=sampling.max_new_tokens,
            pad_token_id=pad_id,
            eos_token_id=self._stop_ids,
            stopping_criteria=[_StopOnReActEnd(self.tokenizer, width, single_line)],
        )
        if sampling.greedy:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            kwargs.update(do_sample=True, temperature=sampling.temperature, top_p=sampling.top_p, top_k=None)
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.inference_mode():
                if sampling.seed is not None:
                    torch.manual_seed(sampling.seed)
                if self.prefix_cache:
                    caches = [self._extend(p, ids) for p, (ids, _) in zip(previous, prompts)]
                    kwargs[self._cache_kw] = self._merge(caches, pads)
                out = self.model.generate(input_ids=input_ids, attention_mask=attention_mask, **kwargs)
                if self.prefix_cache:
                    kept = self._split(kwargs[self._cache_kw], out, pads)
        finally:
            if was_training:
                self.model.train()
        with self._lock:
            for i, (key, (_, cut)) in enumerate(zip(keys, prompts)):
                if key is None:
                    continue
                self._dropped[key] = cut
                self._dropped.move_to_end(key)
                if self.prefix_cache:
                    self._prefixes[key] = kept[i]
            while len(self._prefixes) > self.max_cached_episodes:
                self._prefixes.popitem(last=False)
            while len(self._dropped) > 4 * self.max_cached_episodes:
                self._dropped.popitem(last=False)
        return [t.strip() for t in self.tokenizer.batch_decode(out[:, width:], skip_special_tokens=True)]

    async def act(
        self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None
    ) -> list[str | None]:
        replies: list[str | None] = []
        for start in range(0, len(requests), self.max_batch_size):
            chunk = requests[start : start + self.max_batch_size]
            replies.extend(await asyncio.to_thread(self.generate, chunk, sampling))
        return replies

    async def end_episode(self, session_id: str) -> None:
        self.release(session_id)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": "transformers",
            "model": getattr(self.model.config, "_name_or_path", ""),
            "max_prompt_tokens": self.max_prompt_tokens,
            "max_batch_size": self.max_batch_size,
            "prefix_cache": self.prefix_cache,
        }
