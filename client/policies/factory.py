"""Policies by name, for command lines: `expert`, `random`, `smollm2`, a model directory,
`hf:DIR`, or `openai:MODEL[@BASE_URL]`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coevo.client.policies.base import Policy, Sampling

POLICY_HELP = (
    "expert | random | smollm2 (the default CPU model) | hf:DIR or a model directory | "
    "openai:MODEL[@BASE_URL] (an OpenAI-compatible endpoint; key from $OPENAI_API_KEY)"
)


def make_policy(spec: str, *, sampling: Sampling | None = None, **options: Any) -> Policy:
    """Build the policy `spec` names. Options go to the policy's constructor (e.g.
    max_batch_size, max_prompt_tokens for models; max_concurrency for endpoints)."""
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
    from coevo.client.policies.hf import TransformersPolicy

    allowed = {"max_batch_size", "max_prompt_tokens", "device", "dtype"}
    kwargs = {k: v for k, v in options.items() if k in allowed}
    if spec in ("smollm2", "default"):
        from coevo.client.policies.models import default_model_dir

        return TransformersPolicy(default_model_dir(), name="smollm2-135m", sampling=sampling, **kwargs)
    path = Path(spec[len("hf:") :] if spec.startswith("hf:") else spec)
    if not (path / "config.json").is_file():
        raise ValueError(f"unknown policy {spec!r}; expected {POLICY_HELP}")
    return TransformersPolicy(path, sampling=sampling, **kwargs)
