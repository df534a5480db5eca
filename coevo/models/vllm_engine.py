"""The vLLM engine: one colocated engine per process, started from a checkpoint directory, with
other checkpoints of the same architecture (or a trainer's in-memory weights) loaded into it in
place. The policy that prompts it is client/policies/vllm_policy.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

#: The process's colocated engine: [the checkpoint directory whose weights it holds (None after a
#: sync from memory), its architecture, the engine]. vLLM frees a GPU engine badly, so a process
#: keeps the one it started and loads other checkpoints of the same architecture into it.
_ENGINE: list[Any] = []


def vllm_installed() -> bool:
    return importlib.util.find_spec("vllm") is not None


def architecture(model_dir: str | Path) -> tuple[Any, ...]:
    import json

    config = json.loads((Path(model_dir) / "config.json").read_text())
    keys = ("architectures", "hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size")
    return tuple(json.dumps(config.get(k)) for k in keys)


def load_checkpoint(engine: Any, model_dir: str) -> None:
    from safetensors.torch import load_file

    runner = engine.llm_engine.model_executor.driver_worker.model_runner.model
    for shard in sorted(Path(model_dir).glob("*.safetensors")):
        runner.load_weights(list(load_file(str(shard)).items()))
    engine.reset_prefix_cache()


def engine_for(model_dir: str, gpu_memory_utilization: float, max_model_len: int) -> Any:
    """The process's engine serving `model_dir`: started on first use, else the running one with
    that checkpoint's weights loaded (the same architecture only)."""
    from vllm import LLM

    if not _ENGINE:
        engine = LLM(
            model=model_dir, gpu_memory_utilization=gpu_memory_utilization, max_model_len=max_model_len,
            enable_prefix_caching=True, dtype="auto",
        )  # fmt: skip
        _ENGINE.extend([model_dir, architecture(model_dir), engine])
        return engine
    served, served_architecture, engine = _ENGINE
    if served != model_dir:
        if served_architecture != architecture(model_dir):
            raise ValueError(f"this process's vLLM engine serves another architecture than {model_dir}")
        load_checkpoint(engine, model_dir)
        _ENGINE[0] = model_dir
    return engine


def engine_started() -> bool:
    """Whether this process has started its engine (a later policy loads weights into it)."""
    return bool(_ENGINE)


def load_weights(engine: Any, named_parameters: Iterable[tuple[str, torch.Tensor]]) -> None:
    """A weight sync: load in-memory weights into the engine in place and drop its prefix cache."""
    runner = engine.llm_engine.model_executor.driver_worker.model_runner.model
    for name, param in named_parameters:
        runner.load_weights([(name, param.data)])
    engine.reset_prefix_cache()
    _ENGINE[0] = None  # no checkpoint on disk holds these weights
