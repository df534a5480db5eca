"""Policies by name, for command lines: `expert`, `random`, `smollm2`, a model directory,
`hf:DIR`, or `openai:MODEL[@BASE_URL]`; and the choice of engine for local models."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coevo.client.policies.base import Policy, Sampling

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from coevo.client.policies.local import ChatModelPolicy

POLICY_HELP = (
    "expert | random | smollm2 (the default CPU model) | hf:DIR or a model directory | "
    "openai:MODEL[@BASE_URL] (an OpenAI-compatible endpoint; key from $OPENAI_API_KEY)"
)

#: Engines for local models. auto: vLLM on a GPU host where it is installed, else transformers
#: there; llama.cpp on a CPU-only host where it is installed, else transformers.
BACKENDS = ("auto", "vllm", "llamacpp", "transformers")
BACKEND_HELP = (
    "Local models' engine: auto (vLLM on GPU hosts where installed, else transformers; llama.cpp on CPU hosts) | "
    "vllm | llamacpp | transformers"
)
#: Overrides "auto" for every command and trainer.
BACKEND_ENV = "COEVO_POLICY_BACKEND"

#: Options each local engine takes (the rest of a command's options are for other policies).
_LOCAL_OPTIONS = {
    "transformers": {"max_batch_size", "max_prompt_tokens", "max_cached_episodes", "device", "dtype", "name"},
    "llamacpp": {
        "max_batch_size", "max_prompt_tokens", "max_cached_episodes", "max_reply_tokens", "threads", "precision",
        "kv_type", "flash_attention", "name", "seed", "cache_gguf", "share_prefixes",
    },
    "vllm": {"max_batch_size", "max_prompt_tokens", "max_cached_episodes", "name", "seed", "gpu_memory_utilization"},
}  # fmt: skip


def choose_backend(setting: str, *, cuda: bool, vllm: bool, llamacpp: bool) -> str:
    """The engine for a setting on a host with (or without) a CUDA GPU, vLLM and llama.cpp: a named
    engine if the host can run it (else ValueError); auto: vLLM on a GPU with vLLM, transformers on
    a GPU without it, llama.cpp on a CPU host with it, transformers on one without."""
    if setting not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {setting!r}")
    if setting == "llamacpp" and not llamacpp:
        raise ValueError("backend llamacpp needs llama-cpp-python (scripts/bootstrap.sh builds it)")
    if setting == "vllm" and not (vllm and cuda):
        raise ValueError("backend vllm needs vllm installed and a CUDA GPU")
    if setting != "auto":
        return setting
    if cuda:
        return "vllm" if vllm else "transformers"
    return "llamacpp" if llamacpp else "transformers"


def resolve_backend(setting: str | None = None) -> str:
    """The engine a local model runs on: `setting` (or $COEVO_POLICY_BACKEND), with auto decided
    by the hardware and what is installed (choose_backend)."""
    import torch

    from coevo.client.policies.llamacpp import llama_cpp_available
    from coevo.client.policies.vllm_policy import vllm_installed

    setting = setting or os.environ.get(BACKEND_ENV) or "auto"
    return choose_backend(
        setting, cuda=torch.cuda.is_available(), vllm=vllm_installed(), llamacpp=llama_cpp_available()
    )


def _local_options(backend: str, options: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in options.items() if k in _LOCAL_OPTIONS[backend]}


def local_policy(
    model: str | Path, *, backend: str | None = None, sampling: Sampling | None = None, **options: Any
) -> ChatModelPolicy:
    """A checkpoint directory as a policy on the chosen engine."""
    chosen = resolve_backend(backend)
    kwargs = _local_options(chosen, options)
    if chosen == "llamacpp":
        from coevo.client.policies.llamacpp import LlamaCppPolicy

        return LlamaCppPolicy(model, sampling=sampling, **kwargs)
    if chosen == "vllm":
        from coevo.client.policies.vllm_policy import VLLMPolicy

        return VLLMPolicy(model, sampling=sampling, **kwargs)
    from coevo.client.policies.hf import TransformersPolicy

    return TransformersPolicy(model, sampling=sampling, **kwargs)


def in_memory_policy(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    *,
    workdir: str | Path,
    backend: str | None = None,
    sampling: Sampling | None = None,
    **options: Any,
) -> ChatModelPolicy:
    """A trainer's in-memory model as a policy: llama.cpp gets a GGUF copy under `workdir` (a
    weight sync; its time is in `last_sync_s`), vLLM the process's colocated engine with the
    model's current weights loaded in place, transformers uses the model itself."""
    chosen = resolve_backend(backend)
    kwargs = _local_options(chosen, options)
    if chosen == "vllm":
        from coevo.client.policies.vllm_policy import VLLMPolicy

        return VLLMPolicy.from_model(model, tokenizer, workdir, sampling=sampling, **kwargs)
    if chosen == "llamacpp" and model.device.type == "cpu":
        from coevo.client.policies.llamacpp import LlamaCppPolicy

        return LlamaCppPolicy.from_model(model, tokenizer, workdir, sampling=sampling, **kwargs)
    from coevo.client.policies.hf import TransformersPolicy

    return TransformersPolicy((model, tokenizer), sampling=sampling, **_local_options("transformers", options))


def make_policy(spec: str, *, sampling: Sampling | None = None, backend: str | None = None, **options: Any) -> Policy:
    """Build the policy `spec` names. Options go to the policy's constructor (e.g.
    max_batch_size, max_prompt_tokens for models; max_concurrency for endpoints); `backend`
    picks the engine of local models (see BACKENDS)."""
    if spec == "expert":
        from coevo.client.policies.expert import ExpertPolicy

        return ExpertPolicy(sampling)
    if spec == "random":
        from coevo.client.policies.random_policy import RandomPolicy

        return RandomPolicy(seed=options.get("seed", 0), sampling=sampling)
    if spec.startswith("openai:"):
        from coevo.client.policies.openai_compat import OpenAIChatPolicy

        model, _, base_url = spec[len("openai:") :].partition("@")
        if not model:
            raise ValueError("openai:MODEL needs a model name")
        allowed = {"api_key", "max_concurrency", "timeout_s", "retries", "backoff_s", "extra_body"}
        return OpenAIChatPolicy(
            model, base_url=base_url or None, sampling=sampling, **{k: v for k, v in options.items() if k in allowed}
        )
    from coevo.client.policies.models import SMOLLM2_ALIASES, default_model_dir

    if spec.lower() in SMOLLM2_ALIASES:
        return local_policy(
            default_model_dir(), backend=backend, sampling=sampling, **{**options, "name": "smollm2-135m"}
        )
    path = Path(spec[len("hf:") :] if spec.startswith("hf:") else spec)
    if not (path / "config.json").is_file():
        raise ValueError(f"unknown policy {spec!r}; expected {POLICY_HELP}")
    return local_policy(path, backend=backend, sampling=sampling, **options)
