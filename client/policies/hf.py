"""A local transformers model as a policy: batched generation with the tokenizer's chat template.

Prompts are left-padded so one `generate` call decodes a whole round of episodes (prompt
rendering, the budget and the end-of-reply rules are shared with every local backend: local.py).

With `prefix_cache` (the default) each episode keeps its KV cache between rounds and a round is
decoded as one batched `generate` over the merged caches (coevo.models.kv_prefix); the result is
identical to recomputing everything (tested).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from coevo.client.policies.base import PolicyRequest, Sampling
from coevo.client.policies.local import ChatModelPolicy, fit_messages, reply_over, stop_trigger_ids
from coevo.models.checkpoints import AGENT_FILE, read_prompt_options
from coevo.models.kv_prefix import CachedPrefix, PrefixKV
from coevo.models.loading import load_model
from coevo.models.tokenizers import CHATML_TEMPLATE, prepare_tokenizer, stop_token_ids

__all__ = [
    "AGENT_FILE", "CHATML_TEMPLATE", "TransformersPolicy", "fit_messages", "load_model", "prepare_tokenizer",
    "stop_token_ids",
]  # fmt: skip

if TYPE_CHECKING:
    import torch
    from transformers import GenerationMixin, PreTrainedModel, PreTrainedTokenizerBase


class _StopOnReActEnd:
    """Stops each row once its reply is over (local.reply_over); rows are independent. Checks
    for cancellation too, so SIGTERM stops a generation at the next token.

    A row is decoded only on steps whose new token can complete a stop match (`triggers`,
    local.stop_trigger_ids) and only while it runs: decoding every row's whole reply at every
    step cost O(rows x length) tokenizer work per step, which on a GPU outweighed the model's step
    (the held-out pass of 200 tasks took 34-48 s on an H200). Same stops, token for token (tested)."""

    def __init__(
        self, tokenizer: PreTrainedTokenizerBase, prompt_len: int, single_line: list[bool],
        check_cancelled: Callable[[], None] = lambda: None, triggers: torch.Tensor | None = None,
    ) -> None:  # fmt: skip
        self.tokenizer, self.prompt_len, self.single_line = tokenizer, prompt_len, single_line
        self.check_cancelled = check_cancelled
        self.triggers = triggers
        self.done: torch.Tensor | None = None

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs: Any) -> torch.Tensor:
        import torch

        self.check_cancelled()
        if self.done is None:
            self.done = torch.zeros(input_ids.shape[0], dtype=torch.bool, device=input_ids.device)
        running = ~self.done
        if self.triggers is not None:
            running &= self.triggers.to(input_ids.device)[input_ids[:, -1]]
        rows = running.nonzero().flatten().tolist()
        if rows:
            texts = self.tokenizer.batch_decode(input_ids[rows, self.prompt_len :], skip_special_tokens=True)
            over = [i for i, text in zip(rows, texts) if reply_over(text, self.single_line[i])]
            if over:
                self.done[over] = True
        return self.done.clone()


class TransformersPolicy(ChatModelPolicy):
    """Generates replies with a local model; `model` is a directory or a loaded (model, tokenizer)."""

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
        if isinstance(model, tuple):
            self.model, tokenizer = model
            default_name, options = "model", {}
        else:
            self.model, tokenizer = load_model(model, device=device, dtype=dtype)
            default_name, options = Path(model).name, read_prompt_options(model)
        super().__init__(
            tokenizer, name=name or default_name, sampling=sampling, max_batch_size=max_batch_size,
            max_prompt_tokens=max_prompt_tokens, max_cached_episodes=max_cached_episodes,
        )  # fmt: skip
        self.prompt_options = options
        self.prefix_cache = prefix_cache
        self._prefixes: OrderedDict[str, CachedPrefix] = OrderedDict()
        self._kv = PrefixKV(self.model)
        self._triggers: torch.Tensor | None = None

    def _stop_triggers(self) -> torch.Tensor:
        """The token ids whose step can end a reply (stop_trigger_ids), on the model's device; made once."""
        import torch

        if self._triggers is None:
            vocab = int(self.model.get_output_embeddings().weight.shape[0])
            ids = stop_trigger_ids(self.tokenizer, vocab)
            self._triggers = torch.tensor(ids, dtype=torch.bool, device=self.model.device)
        return self._triggers

    @classmethod
    def from_model(
        cls, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, workdir: str | Path, **options: Any
    ) -> TransformersPolicy:
        """A policy decoding with a trainer's in-memory model itself (no copy, no weight sync;
        `workdir` is unused)."""
        return cls((model, tokenizer), **options)

    def release(self, key: str) -> None:
        super().release(key)
        with self._lock:
            self._prefixes.pop(key, None)

    # ---------------------------------------------------------------- generation
    def _generate(self, requests: Sequence[PolicyRequest], sampling: Sampling) -> list[str]:
        import torch

        keys = [self.key_of(r) for r in requests]
        with self._lock:
            previous = [self._prefixes.pop(k, None) if (k and self.prefix_cache) else None for k in keys]
        prompts = self.prompts_for(requests)
        width = max(len(ids) for ids in prompts)
        pads = [width - len(ids) for ids in prompts]
        pad_id = self.tokenizer.pad_token_id
        device = self.model.device
        input_ids = torch.tensor([[pad_id] * p + ids for ids, p in zip(prompts, pads)], device=device)
        attention_mask = torch.tensor([[0] * p + [1] * len(ids) for ids, p in zip(prompts, pads)], device=device)
        stop = _StopOnReActEnd(
            self.tokenizer, width, [self.single_line(r) for r in requests], self.check_cancelled, self._stop_triggers()
        )
        kwargs: dict[str, Any] = dict(
            max_new_tokens=sampling.max_new_tokens, pad_token_id=pad_id, eos_token_id=self._stop_ids,
            stopping_criteria=[stop],
        )  # fmt: skip
        if sampling.greedy:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            kwargs.update(
                do_sample=True, temperature=sampling.temperature, top_p=sampling.top_p, top_k=sampling.top_k or None,
                min_p=sampling.min_p or None,
            )  # fmt: skip
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.inference_mode():
                if sampling.seed is not None:
                    torch.manual_seed(sampling.seed)
                if self.prefix_cache:
                    caches = [self._kv.extend(p, ids) for p, ids in zip(previous, prompts)]
                    kwargs[self._kv.cache_kw] = self._kv.merge(caches, pads)
                # A causal LM mixes GenerationMixin in; PreTrainedModel itself has no generate.
                model = cast("GenerationMixin", self.model)
                out = model.generate(input_ids=input_ids, attention_mask=attention_mask, **kwargs)
                if self.prefix_cache:
                    kept = self._kv.split(kwargs[self._kv.cache_kw], out, pads)
        finally:
            if was_training:
                self.model.train()
        if self.prefix_cache:
            with self._lock:
                for i, key in enumerate(keys):
                    if key is not None:
                        self._prefixes[key] = kept[i]
                while len(self._prefixes) > self.max_cached_episodes:
                    self._prefixes.popitem(last=False)
        return [t.strip() for t in self.tokenizer.batch_decode(out[:, width:], skip_special_tokens=True)]

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": "transformers",
            "model": getattr(self.model.config, "_name_or_path", ""),
            "max_prompt_tokens": self.max_prompt_tokens,
            "max_batch_size": self.max_batch_size,
            "prefix_cache": self.prefix_cache,
        }
