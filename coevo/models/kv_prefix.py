"""Batched generation that reuses each episode's KV cache between rounds (transformers).

Multi-turn prompts grow by one observation and one reply per round, so re-reading the whole
history every round would dominate the cost. Each episode keeps its KV cache: a round first
extends every episode's cache by just its new tokens (`extend`, trimming it back to the tokens a
cut prompt still shares), then the caches are left-padded into one batch cache (`merge`) that a
single batched `generate` continues, and split back per episode afterwards (`split`).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from transformers import PreTrainedModel


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token lists."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


@dataclass
class CachedPrefix:
    """One episode's KV cache and the tokens it holds."""

    ids: list[int]
    cache: Any


def new_cache() -> Any:
    from transformers import DynamicCache

    return DynamicCache()


class PrefixKV:
    """The per-episode KV caches of one model: the names its forward gives the cache and the
    logits-to-keep arguments (they differ between transformers versions and models)."""

    def __init__(self, model: PreTrainedModel) -> None:
        self.model = model
        params = inspect.signature(model.forward).parameters
        self.cache_kw = "cache" if "cache" in params else "past_key_values"
        self.keep_kw = next((k for k in ("logits_to_keep", "num_logits_to_keep") if k in params), None)

    def extend(self, prefix: CachedPrefix | None, ids: list[int]) -> Any:
        """A cache holding all of `ids` but the last token, reusing what `prefix` already holds."""
        import torch

        target = len(ids) - 1
        if prefix is None:
            cache, have = new_cache(), 0
        else:
            cache = prefix.cache
            have = min(common_prefix(prefix.ids, ids), target)
            excess = cache.get_seq_length() - have
            if excess > 0:
                cache.crop(-excess)
        if target > have:
            kwargs: dict[str, Any] = {self.cache_kw: cache, "use_cache": True}
            if self.keep_kw:
                kwargs[self.keep_kw] = 1
            self.model(input_ids=torch.tensor([ids[have:target]], device=self.model.device), **kwargs)
        return cache

    def merge(self, caches: list[Any], pads: list[int]) -> Any:
        """One batch cache from per-episode caches, left-padded with zeros (masked out)."""
        import torch

        merged = new_cache()
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

    def split(self, merged: Any, out: Any, pads: list[int]) -> list[CachedPrefix]:
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
            prefixes.append(CachedPrefix(out[row, pad:length].tolist(), cache))
        return prefixes
