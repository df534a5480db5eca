"""Policies by name, for command lines: `expert`, `random`, `smollm2`, a model directory,
`hf:DIR`, or `openai:MODEL[@BASE_URL]`. Local models run on the engine the backend registry
(coevo.models.registry) picks; this module only builds the policy class its table names."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from coevo.client.policies.base import Policy, Sampling
from coevo.models.registry import (
    BACKEND_ENV,
    BACKEND_HELP,
    BACKENDS,
    choose_backend,
    load_object,
    registry,
    resolve_backend,
)
from coevo.models.registry import backend as _backend

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from coevo.client.policies.local import ChatModelPolicy

__all__ = [
    "BACKENDS", "BACKEND_ENV", "BACKEND_HELP", "POLICY_HELP", "choose_backend", "in_memory_policy", "local_policy",
    "make_policy", "policy_class", "resolve_backend",
]  # fmt: skip

POLICY_HELP = (
    "expert | random | smollm2 (the default CPU model) | hf:DIR or a model directory | "
    "openai:MODEL[@BASE_URL] (an OpenAI-compatible endpoint; key from $OPENAI_API_KEY)"
)


class LocalPolicyClass(Protocol):
    """What the registry's policy classes offer: built from a checkpoint directory, or from a
    trainer's in-memory model (`from_model`)."""

    def __call__(self, model: str | Path, *, sampling: Sampling | None = ..., **options: Any) -> ChatModelPolicy: ...

    def from_model(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        workdir: str | Path,
        *,
        sampling: Sampling | None = ...,
        **options: Any,
    ) -> ChatModelPolicy: ...


def policy_class(name: str) -> LocalPolicyClass:
    """The policy class that drives backend `name` (the registry's "module:Class" entry)."""
    return cast(LocalPolicyClass, load_object(_backend(name).policy))


def local_policy(
    model: str | Path, *, backend: str | None = None, sampling: Sampling | None = None, **options: Any
) -> ChatModelPolicy:
    """A checkpoint directory as a policy on the chosen engine."""
    chosen = resolve_backend(backend)
    return policy_class(chosen)(model, sampling=sampling, **_backend(chosen).options_of(options))


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
    model's current weights loaded in place, transformers uses the model itself. A backend that
    cannot serve the model's device (the registry's `in_memory_on`) leaves it to the fallback."""
    chosen = resolve_backend(backend)
    if not _backend(chosen).serves_in_memory(model.device.type):
        chosen = registry().in_memory_fallback
    kwargs = _backend(chosen).options_of(options)
    return policy_class(chosen).from_model(model, tokenizer, workdir, sampling=sampling, **kwargs)


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
    from coevo.models.checkpoints import SMOLLM2_ALIASES, default_model_dir

    if spec.lower() in SMOLLM2_ALIASES:
        return local_policy(
            default_model_dir(), backend=backend, sampling=sampling, **{**options, "name": "smollm2-135m"}
        )
    path = Path(spec[len("hf:") :] if spec.startswith("hf:") else spec)
    if not (path / "config.json").is_file():
        raise ValueError(f"unknown policy {spec!r}; expected {POLICY_HELP}")
    return local_policy(path, backend=backend, sampling=sampling, **options)
