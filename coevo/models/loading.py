"""A local checkpoint directory loaded with transformers: the model on its device and dtype, and
its tokenizer prepared for batched chat generation. Every engine that reads a checkpoint's
weights (transformers, the llama.cpp GGUF export, the trainers) loads it here."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from coevo.models.tokenizers import prepare_tokenizer

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

# OpenMP threads that spin while waiting collapse throughput when the CPU is shared (a 135M
# model decoded 6x slower on 2 busy cores); passive waiting costs nothing when it is not.
# Only effective if set before torch is first imported, which this module does lazily.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


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
    # transformers wraps .to in functools.wraps, whose stub binds no self: mypy wants a model first
    model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch_dtype).to(device)  # type: ignore[arg-type]
    model.eval()
    return model, prepare_tokenizer(tokenizer)
