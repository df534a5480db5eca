"""The llama.cpp engine: a GGUF model and one context with a KV sequence per slot, driven
through llama-cpp-python's low-level C API; and the GGUF copies of checkpoint directories it
loads. The policy that schedules episodes onto slots is client/policies/llamacpp.py."""

from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import logging
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coevo.models.checkpoints import cache_dir, file_lock
from coevo.models.gguf_export import export_gguf
from coevo.models.loading import load_model

if TYPE_CHECKING:
    import numpy as np
    from transformers import PreTrainedTokenizerBase

log = logging.getLogger(__name__)

#: Highest number of sequences one llama.cpp context holds (llama.cpp's LLAMA_MAX_SEQ).
MAX_SLOTS = 256
#: ggml's type ids for the KV cache.
_KV_TYPES = {"f32": 0, "f16": 1}


def llama_cpp_available() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None


class LlamaCppModel:
    """A GGUF model and one llama.cpp context with `slots` KV sequences of `context_tokens`
    cells each. Not thread-safe: the policy serialises calls."""

    _log_callback: Any = None

    def __init__(
        self, path: str | Path, *, slots: int, context_tokens: int, threads: int, batch_tokens: int = 1024,
        kv_type: str = "f16", flash_attention: bool = True,
    ) -> None:  # fmt: skip
        import llama_cpp

        if not 1 <= slots <= MAX_SLOTS:
            raise ValueError(f"slots must be in 1..{MAX_SLOTS}, got {slots}")
        if kv_type not in _KV_TYPES:
            raise ValueError(f"kv_type must be one of {sorted(_KV_TYPES)}, got {kv_type!r}")
        self._lib = llama_cpp
        self._quiet()
        llama_cpp.llama_backend_init()
        self.path = Path(path)
        model_params = llama_cpp.llama_model_default_params()
        model_params.n_gpu_layers = 0
        self._model = llama_cpp.llama_model_load_from_file(str(self.path).encode(), model_params)
        if not self._model:
            raise RuntimeError(f"llama.cpp could not load {self.path}")
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = slots * context_tokens
        params.n_batch = batch_tokens
        params.n_ubatch = min(512, batch_tokens)
        params.n_seq_max = slots
        params.kv_unified = False  # a stream per sequence (see the module docstring)
        params.n_threads = threads
        params.n_threads_batch = threads
        params.type_k = params.type_v = _KV_TYPES[kv_type]
        # Fused attention (llama.cpp's "auto" leaves it off on a CPU): a batch-8 decode step of
        # SmolLM2-135M after ~550-token prompts took 75-78 ms without it and 46-52 ms with it.
        params.flash_attn_type = (
            llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED if flash_attention else llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
        )
        params.no_perf = True
        self._ctx = llama_cpp.llama_init_from_model(self._model, params)
        if not self._ctx:
            llama_cpp.llama_model_free(self._model)
            raise RuntimeError(
                f"llama.cpp could not create a context for {self.path} ({slots} x {context_tokens} cells)"
            )
        self._memory = llama_cpp.llama_get_memory(self._ctx)
        self.n_vocab = llama_cpp.llama_vocab_n_tokens(llama_cpp.llama_model_get_vocab(self._model))
        self.batch_tokens = batch_tokens
        self._batch = llama_cpp.llama_batch_init(batch_tokens, 0, 1)

    @classmethod
    def _quiet(cls) -> None:
        """llama.cpp's own messages go to Python logging (debug), not to the terminal."""
        import llama_cpp

        if cls._log_callback is None:

            @llama_cpp.llama_log_callback
            def forward(level: int, text: bytes, user_data: Any) -> None:
                if level == 4:  # GGML_LOG_LEVEL_ERROR (3 is WARN, 2 INFO, 1 DEBUG, 5 a continuation)
                    log.warning("llama.cpp: %s", text.decode(errors="replace").rstrip())
                elif level == 3:
                    log.debug("llama.cpp: %s", text.decode(errors="replace").rstrip())

            cls._log_callback = forward
        llama_cpp.llama_log_set(cls._log_callback, ctypes.c_void_p(0))

    def close(self) -> None:
        lib = self._lib
        if getattr(self, "_batch", None) is not None:
            lib.llama_batch_free(self._batch)
            self._batch = None
        if getattr(self, "_ctx", None):
            lib.llama_free(self._ctx)
            self._ctx = None
        if getattr(self, "_model", None):
            lib.llama_model_free(self._model)
            self._model = None

    def set_threads(self, threads: int) -> None:
        """Threads for the next decode calls (one token per sequence and prompt batches alike)."""
        self._lib.llama_set_n_threads(self._ctx, threads, threads)

    def forget(self, seq: int, keep: int = 0) -> None:
        """Drop sequence `seq`'s cells from position `keep` on."""
        self._lib.llama_memory_seq_rm(self._memory, seq, keep, -1)

    def positions(self, seq: int) -> tuple[int, int]:
        """The lowest and highest position sequence `seq` holds ((-1, -1) when empty)."""
        lib = self._lib
        return lib.llama_memory_seq_pos_min(self._memory, seq), lib.llama_memory_seq_pos_max(self._memory, seq)

    def copy_prefix(self, src: int, dst: int, keep: int) -> None:
        """Sequence `dst` becomes the first `keep` positions of sequence `src`. Each sequence has a
        stream of its own, and llama.cpp copies between streams whole only (the data moves at
        the next decode), so all of `src` is copied and the rest trimmed."""
        self._lib.llama_memory_seq_rm(self._memory, dst, -1, -1)
        self._lib.llama_memory_seq_cp(self._memory, src, dst, -1, -1)
        self._lib.llama_memory_seq_rm(self._memory, dst, keep, -1)

    def decode(self, entries: Sequence[tuple[int, int, int, bool]]) -> list[np.ndarray]:
        """Feed (token, position, seq, wants_logits) entries, at most batch_tokens of them;
        returns the logits of the entries that want them, in order."""
        import numpy as np

        batch = self._batch
        for i, (token, pos, seq, wants) in enumerate(entries):
            batch.token[i] = token
            batch.pos[i] = pos
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = seq
            batch.logits[i] = 1 if wants else 0
        batch.n_tokens = len(entries)
        status = self._lib.llama_decode(self._ctx, batch)
        if status != 0:
            raise RuntimeError(f"llama_decode failed with status {status}")
        rows = []
        for i, (_, _, _, wants) in enumerate(entries):
            if wants:
                pointer = self._lib.llama_get_logits_ith(self._ctx, i)
                rows.append(np.ctypeslib.as_array(pointer, shape=(self.n_vocab,)).copy())
        return rows


def gguf_cache_path(model_dir: Path, precision: str) -> Path:
    """Where the GGUF copy of a checkpoint directory lives: keyed by the directory and the
    sizes and times of its weight files, so a retrained checkpoint gets a fresh copy."""

    stamp = hashlib.sha256(str(model_dir.resolve()).encode())
    for weights in sorted(model_dir.glob("*.safetensors")) + sorted(model_dir.glob("*.bin")):
        info = weights.stat()
        stamp.update(f"{weights.name}:{info.st_size}:{info.st_mtime_ns}".encode())
    return cache_dir() / "gguf" / f"{model_dir.name}-{stamp.hexdigest()[:16]}-{precision}.gguf"


def gguf_for_dir(model_dir: Path, precision: str) -> tuple[Path, PreTrainedTokenizerBase]:
    """The checkpoint's GGUF copy (written on first use) and its tokenizer."""
    from transformers import AutoTokenizer

    path = gguf_cache_path(model_dir, precision)
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    if not path.is_file():
        with file_lock(path.with_suffix(".lock")):
            if not path.is_file():
                model, _ = load_model(model_dir, device="cpu", dtype="float32")
                export_gguf(model, tokenizer, path, precision=precision)
    return path, tokenizer


def private_gguf(model_dir: Path, precision: str) -> tuple[Path, PreTrainedTokenizerBase]:
    """A GGUF copy of the checkpoint for one policy only (its owner removes it), and the tokenizer."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    model, _ = load_model(model_dir, device="cpu", dtype="float32")
    path = cache_dir() / "gguf" / f".{model_dir.name}-private-{os.getpid()}-{time.monotonic_ns()}-{precision}.gguf"
    export_gguf(model, tokenizer, path, precision=precision)
    return path, tokenizer
