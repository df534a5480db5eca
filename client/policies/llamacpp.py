"""The fast CPU backend: a local model decoded by llama.cpp (llama-cpp-python, built from source
by the set-up), behind the same policy interface as the transformers backend.

Why llama.cpp on a CPU: transformers spends most of a small model's decode step in Python and
framework overhead (SmolLM2-135M: ~150 ms a step where the arithmetic is ~3 ms); llama.cpp runs
the same weights (f16 by default, gguf_export.DEFAULT_PRECISION) in fused C kernels. bench/policy.py measures the two in one run.

How it decodes:
- One llama.cpp context holds a KV sequence per live episode (a "slot"), each in a stream of
  its own (`context_tokens` cells): with one shared pool, every token would attend over all
  episodes' cells, masked, and a batch of eight 500-token first turns took 2x longer. A round
  only feeds each episode's new tokens: the conversation so far stays in its slot between turns
  (prefix reuse), and an episode whose prompt was cut is trimmed back to the tokens it still
  shares. With more episodes than slots, the least recently used idle one gives its slot up.
- Episodes of one env share most of their first prompt (the instructions, the worked example;
  68% to 93% of a first turn, measured on the built-in envs). A new episode's slot
  starts as a copy of the KV of the episode whose tokens share the longest prefix with its
  prompt, when that is at least MIN_SHARED_TOKENS longer than what the slot holds: an earlier
  prompt of the same round (fed first), a live episode outside the round, or a finished one
  whose KV is kept, as a donor, until its slot is needed. Only the rest of the prompt is
  computed. The logits are those of a fresh prompt (tested).
- Attention is llama.cpp's fused (flash) kernel, which its "auto" setting leaves off on a CPU:
  one operation with an online softmax instead of K·Q, softmax and ·V as three, each writing
  its intermediate matrix.
- Every episode of a round is decoded together, one token each per llama.cpp call, whatever
  their prompt lengths (llama.cpp batches sequences without padding), and an episode leaves the
  batch as soon as its reply is over (local.reply_over), so finished rows cost nothing.
- With a stream per sequence, llama.cpp computes one pass only over a run of consecutive
  ascending sequence ids and gives every other run a pass of its own, each reading all the
  weights again. A decode step is therefore fed in sequence order, and a gap of at most
  MAX_FILLED_GAP ids left by finished episodes is filled with a throwaway token per missing
  sequence (removed right after) instead of splitting the step (see one_pass_layout).
- Prompts are tokenized by the model's transformers tokenizer (local.ChatModelPolicy), so both
  backends see identical tokens; sampling (temperature, top-p) is done here on the logits with a
  seeded numpy generator.
- `sync_weights(model)` writes the trainer's in-memory model to GGUF (gguf_export) and reloads,
  dropping every slot: rollouts after an update always run the updated weights.
"""

from __future__ import annotations

import logging
import os
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coevo.client.policies.base import PolicyRequest, Sampling
from coevo.client.policies.local import ChatModelPolicy, reply_over
from coevo.hardware import ThreadChooser
from coevo.models.checkpoints import read_prompt_options
from coevo.models.gguf_export import DEFAULT_PRECISION, export_gguf
from coevo.models.kv_prefix import common_prefix
from coevo.models.llamacpp_engine import (
    MAX_SLOTS,
    LlamaCppModel,
    gguf_for_dir,
    private_gguf,
)

if TYPE_CHECKING:
    import numpy as np
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

log = logging.getLogger(__name__)

#: When a reply ends (see LlamaCppPolicy.generate_ids).
STOP_MODES = ("reply", "eos", "none")
#: A prompt shares at least this many tokens with another sequence before that sequence's KV is
#: copied instead of computed: between streams llama.cpp copies a whole stream's buffer
#: (~60 MB for SmolLM2 at 2,560 cells, a few ms), the price of computing a handful of tokens.
MIN_SHARED_TOKENS = 64
#: A decode step whose sequence ids leave a gap of at most this many between two of them gets a
#: throwaway token for each missing id, so that llama.cpp computes it in one pass instead of two.
#: Measured with SmolLM2-135M (f16) on 2 cores after 550-token prompts: a pass of k rows costs
#: ~12 ms + ~7 ms x k, so a filled gap of one row saves ~5 ms a step and one of two costs more
#: than the pass it saves (eight rows at every other id: 138 ms split, 98 ms filled).
MAX_FILLED_GAP = 1


@dataclass
class _Slot:
    """One episode's KV sequence: its id in the context and the tokens it holds."""

    seq: int
    tokens: list[int] = field(default_factory=list)


def pick_token(logits: np.ndarray, sampling: Sampling, rng: np.random.Generator) -> int:
    """Greedy, or sampling at a temperature with transformers' filters in its order (top-k,
    top-p, min-p), from one row of logits."""
    import numpy as np

    if sampling.greedy:
        return int(np.argmax(logits))
    z = logits.astype(np.float64) / sampling.temperature
    candidates = np.arange(len(z))
    if 0 < sampling.top_k < len(z):
        candidates = np.argpartition(-z, sampling.top_k - 1)[: sampling.top_k]
    z = z[candidates]
    p = np.exp(z - z.max())
    p /= p.sum()
    if sampling.top_p < 1.0:
        order = np.argsort(-p, kind="stable")
        cut = int(np.searchsorted(np.cumsum(p[order]), sampling.top_p)) + 1
        keep = np.sort(order[:cut])
        candidates, p = candidates[keep], p[keep] / p[keep].sum()
    if sampling.min_p > 0.0:
        keep = p >= sampling.min_p * p.max()
        candidates, p = candidates[keep], p[keep] / p[keep].sum()
    return int(candidates[rng.choice(len(p), p=p)])


Entry = tuple[int, int, int, bool]
"""What LlamaCppModel.decode feeds: token, position, sequence id, whether its logits are wanted."""


def one_pass_layout(
    entries: Sequence[Entry], filler_position: Callable[[int], int | None], max_gap: int = MAX_FILLED_GAP
) -> tuple[list[Entry], list[int], list[tuple[int, int]]]:
    """Lay out a decode step of one token per sequence so llama.cpp computes it in as few passes
    as pays. With a KV stream per sequence, llama.cpp puts only consecutive ascending sequence
    ids in one pass (its `split_equal(sequential=true)`), so the entries are sorted by sequence and
    a gap of at most `max_gap` ids is filled with a throwaway entry per missing sequence, at the
    position `filler_position(seq)` gives (the next free one; None: that sequence cannot take one,
    the gap stays). Returns the entries to feed, for each logits row the call will return the index
    of its entry in `entries`, and the (sequence, position) fillers to remove after the call."""
    order = sorted(range(len(entries)), key=lambda k: entries[k][2])
    feed: list[Entry] = []
    fillers: list[tuple[int, int]] = []
    previous: int | None = None
    for k in order:
        seq = entries[k][2]
        if previous is not None and 0 < seq - previous - 1 <= max_gap:
            missing = [(s, filler_position(s)) for s in range(previous + 1, seq)]
            if all(pos is not None for _, pos in missing):
                fillers += [(s, pos) for s, pos in missing if pos is not None]
                feed += [(0, pos, s, False) for s, pos in missing if pos is not None]
        feed.append(entries[k])
        previous = seq
    rows = [k for k in order if entries[k][3]]
    return feed, rows, fillers


class LlamaCppPolicy(ChatModelPolicy):
    """A local model on llama.cpp. Build it from a checkpoint directory, or with `from_model`
    from a trainer's in-memory model (then `sync_weights` after each update)."""

    def __init__(
        self,
        model: str | Path,
        *,
        tokenizer: PreTrainedTokenizerBase | None = None,
        name: str | None = None,
        sampling: Sampling | None = None,
        max_batch_size: int = 16,
        max_prompt_tokens: int = 2048,
        max_cached_episodes: int | None = None,
        max_reply_tokens: int = 512,
        threads: int | None = None,
        precision: str = DEFAULT_PRECISION,
        kv_type: str = "f16",
        flash_attention: bool = True,
        seed: int | None = None,
        cache_gguf: bool = True,
        share_prefixes: bool = True,
    ) -> None:
        """`model`: a checkpoint directory (converted to GGUF once, cached) or, with `tokenizer`
        given, a GGUF file written by gguf_export. `cache_gguf=False`: a checkpoint scored once
        (a trainer's epoch) gets a private GGUF, removed on close, instead of a cached copy that
        would stay on disk (540 MB for SmolLM2-135M in f32) long after the checkpoint is gone.
        `share_prefixes=False`: a new episode never copies another's KV (see the module docstring).
        `flash_attention=False`: llama.cpp's unfused attention (softmax and products apart)."""
        import numpy as np

        model = Path(model)
        options: dict[str, Any] = {}
        #: The GGUF is the shared cache of a checkpoint directory (a sync writes a private copy).
        self._shared_file = tokenizer is None
        self._private_file: Path | None = None
        if tokenizer is None:
            if not (model / "config.json").is_file():
                raise ValueError(f"{model} is not a model directory (no config.json)")
            if cache_gguf:
                gguf_path, tokenizer = gguf_for_dir(model, precision)
            else:
                gguf_path, tokenizer = private_gguf(model, precision)
                self._shared_file, self._private_file = False, gguf_path
            options = read_prompt_options(model)
        else:
            gguf_path = model
        # A slot per episode of a full batch by default: each costs context_tokens KV cells.
        slots = max(1, min(MAX_SLOTS, max(max_cached_episodes or max_batch_size, max_batch_size)))
        super().__init__(
            tokenizer, name=name or model.stem, sampling=sampling, max_batch_size=min(max_batch_size, slots),
            max_prompt_tokens=max_prompt_tokens, max_cached_episodes=slots,
        )  # fmt: skip
        self.prompt_options = options
        self.precision, self.kv_type, self.flash_attention = precision, kv_type, flash_attention
        #: Fixed threads, or (None) every core unless other processes keep half of them busy,
        #: chosen again before every batch (coevo.hardware.ThreadChooser).
        self._threads = None if threads else ThreadChooser()
        self.threads = threads or self._threads.cores  # type: ignore[union-attr]
        #: KV cells of one episode: its prompt budget and the longest reply; a longer reply is
        #: cut where the episode's context ends.
        self.context_tokens = max_prompt_tokens + max_reply_tokens
        self._slots: OrderedDict[str, _Slot] = OrderedDict()
        #: Finished episodes' sequences whose KV is kept as copy sources until their slot is
        #: needed (oldest first): seq -> the tokens it holds.
        self._donors: OrderedDict[int, list[int]] = OrderedDict()
        #: Prompt tokens copied from another sequence instead of computed, and tokens computed.
        self.prompt_tokens_copied = self.prompt_tokens_computed = 0
        self.share_prefixes = share_prefixes
        #: Episodes that ended while a batch was running; their slots are freed before the next.
        self._pending: set[str] = set()
        #: Sampling randomness when a call names no seed: seeded once here, so a run is repeatable.
        self._rng = np.random.default_rng(seed)
        #: Seconds the last weight sync took (export + reload), for logs and the bench.
        self.last_sync_s: float | None = None
        self.engine = self._load(gguf_path)

    @classmethod
    def from_model(
        cls, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, workdir: str | Path, **options: Any
    ) -> LlamaCppPolicy:
        """A policy serving a trainer's in-memory model (written to workdir/policy-<precision>.gguf);
        the export and load are its first weight sync, timed in `last_sync_s`."""
        started = time.perf_counter()
        precision = options.get("precision", DEFAULT_PRECISION)
        path = export_gguf(model, tokenizer, Path(workdir) / f"policy-{precision}.gguf", precision=precision)
        options.setdefault("name", "model")
        policy = cls(path, tokenizer=tokenizer, **options)
        policy.last_sync_s = time.perf_counter() - started
        return policy

    def _load(self, path: Path) -> LlamaCppModel:
        return LlamaCppModel(
            path, slots=self.max_cached_episodes, context_tokens=self.context_tokens, threads=self.threads,
            kv_type=self.kv_type, flash_attention=self.flash_attention,
        )  # fmt: skip

    # ---------------------------------------------------------------- weights
    def sync_weights(self, model: PreTrainedModel) -> float:
        """Serve `model`'s current weights: export to this policy's GGUF file and reload. Every
        cached episode is dropped (its KV came from the old weights). Returns the seconds taken."""
        started = time.perf_counter()
        with self._busy:
            path = self.engine.path
            if self._shared_file:  # never overwrite the cached copy other policies load
                path = path.with_name(f".{path.stem}-synced-{os.getpid()}-{id(self)}.gguf")
                self._shared_file, self._private_file = False, path
            export_gguf(model, self.tokenizer, path, precision=self.precision)
            self.engine.close()
            with self._lock:
                self._slots.clear()
                self._donors.clear()
            self.engine = self._load(path)
        self.last_sync_s = time.perf_counter() - started
        log.info("llama.cpp: weights synced in %.2fs (%s)", self.last_sync_s, path.name)
        return self.last_sync_s

    # ---------------------------------------------------------------- slots
    def release(self, key: str) -> None:
        super().release(key)
        if self._busy.acquire(blocking=False):  # else the running batch's bookkeeping frees it
            try:
                self._free(key)
            finally:
                self._busy.release()
        else:
            with self._lock:
                self._pending.add(key)

    def _free(self, key: str, *, keep_kv: bool = True) -> None:
        """End an episode's hold on its slot; its KV stays as a copy source (a donor) unless it
        no longer matches its tokens (`keep_kv=False`)."""
        with self._lock:
            slot = self._slots.pop(key, None)
        if slot is None:
            return
        if keep_kv and self.share_prefixes and len(slot.tokens) >= MIN_SHARED_TOKENS:
            self._donors[slot.seq] = slot.tokens
        else:
            self.engine.forget(slot.seq)

    def _claim(self, keys: Sequence[str]) -> list[_Slot]:
        """A slot for every key of this batch: its own, else a free one, else the least
        recently used slot of an episode outside the batch."""
        with self._lock:
            pending, self._pending = self._pending, set()
        for key in pending:
            self._free(key)
        wanted = set(keys)
        slots = []
        for key in keys:
            slot = self._slots.get(key)
            if slot is None:
                used = {s.seq for s in self._slots.values()} | set(self._donors)
                free = next((i for i in range(self.max_cached_episodes) if i not in used), None)
                if free is None and self._donors:
                    free, _ = self._donors.popitem(last=False)
                    self.engine.forget(free)
                if free is None:
                    victim = next(k for k in self._slots if k not in wanted)
                    free = self._slots.pop(victim).seq
                    self.engine.forget(free)
                slot = _Slot(free)
                self._slots[key] = slot
            self._slots.move_to_end(key)
            slots.append(slot)
        return slots

    # ---------------------------------------------------------------- generation
    def _generator(self, sampling: Sampling) -> Any:
        import numpy as np

        if sampling.seed is not None:
            return np.random.default_rng(sampling.seed)
        return self._rng

    def generate_ids(
        self, prompts: Sequence[Sequence[int]], sampling: Sampling, *, keys: Sequence[str] | None = None,
        single_line: Sequence[bool] | None = None, stop: str = "reply",
    ) -> list[list[int]]:  # fmt: skip
        """The new tokens for each prompt (end-of-turn tokens left out). `keys` name the episodes
        whose KV is kept between calls (None: throwaway slots). `stop`: "reply" ends a reply at an
        end-of-turn token or when local.reply_over says so, "eos" at an end-of-turn token only,
        "none" decodes max_new_tokens regardless (to compare backends token by token)."""
        if stop not in STOP_MODES:
            raise ValueError(f"stop must be one of {STOP_MODES}, got {stop!r}")
        if keys is not None and len(keys) > self.max_cached_episodes:
            raise ValueError(f"{len(keys)} episodes in one call; this policy holds {self.max_cached_episodes}")
        outputs: list[list[int]] = []
        with self._busy:
            for start in range(0, len(prompts), self.max_cached_episodes):
                end = start + self.max_cached_episodes
                outputs += self._generate_ids(
                    prompts[start:end], sampling.but(seed=None if sampling.seed is None else sampling.seed + start),
                    None if keys is None else keys[start:end], None if single_line is None else single_line[start:end],
                    stop,
                )  # fmt: skip
        return outputs

    def _generate_ids(
        self, prompts: Sequence[Sequence[int]], sampling: Sampling, keys: Sequence[str] | None,
        single_line: Sequence[bool] | None, stop: str,
    ) -> list[list[int]]:  # fmt: skip
        if self._threads is not None and self._threads.choose() != self.threads:
            self.threads = self._threads.threads
            self.engine.set_threads(self.threads)
            log.debug("llama.cpp threads: %d", self.threads)
        throwaway = keys is None
        names = [f"\0tmp{i}" for i in range(len(prompts))] if keys is None else list(keys)
        lines = list(single_line) if single_line is not None else [False] * len(prompts)
        rng = self._generator(sampling)
        stop_ids = set(self._stop_ids) if stop != "none" else set()
        slots = self._claim(names)
        outputs: list[list[int]] = [[] for _ in prompts]
        try:
            # Prefill: each episode's tokens past what its slot already holds, or past what it
            # copies from another sequence (see the module docstring). Prompts whose best source
            # is an earlier prompt of this round are fed in a second pass, after it.
            first: list[tuple[int, int, int, bool, int]] = []  # token, pos, seq, wants, request
            copies: list[tuple[int, int, int]] = []  # request, the earlier request it copies, tokens shared
            fed_first: dict[int, list[int]] = {}
            in_round = {slot.seq for slot in slots}
            for i, (ids, slot) in enumerate(zip(prompts, slots)):
                ids = list(ids)
                keep = min(common_prefix(slot.tokens, ids), len(ids) - 1)
                source, shared = self._best_source(ids, exclude=in_round)
                earlier, shared_earlier = _longest_shared(ids, fed_first) if self.share_prefixes else (-1, 0)
                if shared_earlier > max(shared, keep + MIN_SHARED_TOKENS - 1):
                    self.engine.forget(slot.seq)
                    slot.tokens = []
                    copies.append((i, earlier, shared_earlier))  # made after the first pass
                    continue
                if shared >= keep + MIN_SHARED_TOKENS:
                    self.engine.copy_prefix(source, slot.seq, shared)
                    self.prompt_tokens_copied += shared - keep
                    keep = shared
                else:
                    self.engine.forget(slot.seq, keep)
                slot.tokens = ids[:keep]
                first += [(ids[pos], pos, slot.seq, pos == len(ids) - 1, i) for pos in range(keep, len(ids))]
                fed_first[i] = ids
            firsts = self._prefill(first, slots)
            second: list[tuple[int, int, int, bool, int]] = []
            for i, earlier, shared in copies:
                ids = list(prompts[i])
                self.engine.copy_prefix(slots[earlier].seq, slots[i].seq, shared)
                self.prompt_tokens_copied += shared
                slots[i].tokens = ids[:shared]
                second += [(ids[pos], pos, slots[i].seq, pos == len(ids) - 1, i) for pos in range(shared, len(ids))]
            firsts.update(self._prefill(second, slots))
            logits = [firsts[i] for i in range(len(prompts))]
            # Decode: one token per unfinished episode per call.
            active = list(range(len(prompts)))
            while active:
                still = []
                for i in active:
                    token = pick_token(logits[i], sampling, rng)
                    if token in stop_ids:
                        continue
                    outputs[i].append(token)
                    if len(outputs[i]) >= sampling.max_new_tokens or len(slots[i].tokens) + 1 >= self.context_tokens:
                        continue
                    if stop == "reply" and reply_over(self.decode(outputs[i]), lines[i]):
                        continue
                    still.append(i)
                active = still
                if not active:
                    break
                self.check_cancelled()
                entries = [(outputs[i][-1], len(slots[i].tokens), slots[i].seq, True) for i in active]
                rows = self._decode_step(entries)
                for i, row in zip(active, rows):
                    slots[i].tokens.append(outputs[i][-1])
                    logits[i] = row
        except BaseException:
            for name in names:  # a half-fed slot no longer matches its token list
                self._free(name, keep_kv=False)
            raise
        if throwaway:
            for name in names:
                self._free(name)
        return outputs

    def _decode_step(self, entries: list[Entry]) -> list[np.ndarray]:
        """One token per sequence in one llama.cpp call laid out by one_pass_layout; the logits
        rows in the order of `entries`."""
        held = {slot.seq: len(slot.tokens) for slot in self._slots.values()}
        held.update((seq, len(tokens)) for seq, tokens in self._donors.items())

        def filler_position(seq: int) -> int | None:
            position = held.get(seq, 0)
            return position if position < self.context_tokens else None

        feed, order, fillers = one_pass_layout(entries, filler_position)
        try:
            rows = self.engine.decode(feed)
        finally:
            for seq, position in fillers:
                self.engine.forget(seq, position)
        by_entry: list[Any] = [None] * len(entries)
        for k, row in zip(order, rows):
            by_entry[k] = row
        return by_entry

    def _prefill(self, feed: list[tuple[int, int, int, bool, int]], slots: list[_Slot]) -> dict[int, Any]:
        """Feed prompt entries (token, pos, seq, wants_logits, request) in batches; the last
        position's logits of each request that has one among them."""
        firsts: dict[int, Any] = {}
        for start in range(0, len(feed), self.engine.batch_tokens):
            self.check_cancelled()
            chunk = feed[start : start + self.engine.batch_tokens]
            rows = self.engine.decode([e[:4] for e in chunk])
            firsts.update(zip((e[4] for e in chunk if e[3]), rows))
            for token, _, _, _, i in chunk:
                slots[i].tokens.append(token)
        self.prompt_tokens_computed += len(feed)
        return firsts

    def _best_source(self, ids: list[int], exclude: set[int]) -> tuple[int, int]:
        """The sequence outside this round (a live episode's or a donor's) sharing the longest
        prefix with `ids` (at most all but its last token), and that length; (-1, 0) if none."""
        if not self.share_prefixes:
            return -1, 0
        holders = [(s.seq, s.tokens) for s in self._slots.values() if s.seq not in exclude]
        holders += [(seq, tokens) for seq, tokens in self._donors.items() if seq not in exclude]
        best, length = -1, 0
        head = ids[:MIN_SHARED_TOKENS]
        for seq, tokens in holders:
            if tokens[:MIN_SHARED_TOKENS] == head:
                n = min(common_prefix(tokens, ids), len(ids) - 1)
                if n > length:
                    best, length = seq, n
        return best, length

    def _generate(self, requests: Sequence[PolicyRequest], sampling: Sampling) -> list[str]:
        keys = [self.key_of(r) or f"\0anon{i}" for i, r in enumerate(requests)]
        prompts = self.prompts_for(requests)
        outputs = self._generate_ids(prompts, sampling, keys, [self.single_line(r) for r in requests], "reply")
        for key in keys:
            if key.startswith("\0"):
                self._free(key)
        return [self.decode(ids).strip() for ids in outputs]

    async def aclose(self) -> None:
        with self._busy:
            self.engine.close()
            if self._private_file is not None:
                self._private_file.unlink(missing_ok=True)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": "llama.cpp",
            "model": str(self.engine.path),
            "precision": self.precision,
            "kv_type": self.kv_type,
            "flash_attention": self.flash_attention,
            "threads": self.threads,
            "max_prompt_tokens": self.max_prompt_tokens,
            "max_batch_size": self.max_batch_size,
            "prompt_tokens_computed": self.prompt_tokens_computed,
            "prompt_tokens_copied": self.prompt_tokens_copied,
        }


def _longest_shared(ids: list[int], prompts: dict[int, list[int]]) -> tuple[int, int]:
    """The request among `prompts` sharing the longest prefix with `ids` (at most all but its
    last token) and that length; (-1, 0) if none shares MIN_SHARED_TOKENS."""
    best, length = -1, 0
    head = ids[:MIN_SHARED_TOKENS]
    for i, other in prompts.items():
        if other[:MIN_SHARED_TOKENS] == head:
            n = min(common_prefix(other, ids), len(ids) - 1)
            if n > length:
                best, length = i, n
    return best, length
