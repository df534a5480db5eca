"""Building the simulator from its options: the store, the base and held-out tasks, and the
environment policy the options name (parametric knobs or an LLM)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coevo.simulator.policies.base import EnvPolicy
from coevo.simulator.state import SimulatorState
from coevo.simulator.tasks import build_base_pool, heldout_tasks
from coevo.store.db import make_engine

#: Largest "heldout" split per family (it is built in memory when the server starts).
MAX_HELDOUT_SIZE = 10_000


def _split_list(value: str | Sequence[str] | None, default: Sequence[str]) -> list[str]:
    if value is None:
        return list(default)
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return list(value)


def build_state(
    backend: str = "parametric",
    families: str | Sequence[str] | None = None,
    policy_path: str | None = None,
    db_url: str | None = None,
    base_sources: str | Sequence[str] | None = None,
    base_size: int = 64,
    base_seed: int = 0,
    llm_model: str | None = None,
    llm_endpoint: str | None = None,
    llm_api_key: str | None = None,
    llm_temperature: float = 0.8,
    llm_max_new_tokens: int = 256,
    llm_examples: int = 2,
    max_attempts: int = 8,
    heldout_size: int = 1000,
    **_: Any,
) -> SimulatorState:
    """Options (all also `--option key=value` on `coevo serve simulator`):
    backend: "parametric" (knob distribution over `families`) or "llm";
    policy_path: saved weights to start from (a policy JSON, or a model directory);
    base_sources: families and/or env names whose tasks form the base split (and the LLM's
    examples); llm_model: local model directory; llm_endpoint: an OpenAI-compatible URL
    (then llm_model names the served model); heldout_size: tasks per family in the
    "heldout" split (0 to 10,000)."""
    engine = make_engine(db_url)
    family_list = _split_list(families, ["function_calling"])
    sources = _split_list(base_sources, family_list if backend == "parametric" else [*family_list, "bfcl", "alfworld"])
    base, status = build_base_pool(sources, int(base_size), int(base_seed))
    policy: EnvPolicy
    if backend == "parametric":
        from coevo.simulator.policies.parametric import ParametricPolicy

        policy = ParametricPolicy(family_list)
        if policy_path:
            policy.load(policy_path)
    elif backend == "llm":
        from coevo.simulator.policies.llm import LLMPolicy
        from coevo.models.text_generators import OpenAIGenerator, TransformersGenerator

        model = policy_path or llm_model
        if not model:
            raise ValueError("the llm backend needs llm_model (or policy_path): a model directory or served name")
        generator = OpenAIGenerator(llm_endpoint, model, llm_api_key) if llm_endpoint else TransformersGenerator(model)
        policy = LLMPolicy(
            generator,
            base,
            examples_per_prompt=int(llm_examples),
            max_new_tokens=int(llm_max_new_tokens),
            temperature=float(llm_temperature),
        )
    else:
        raise ValueError(f"unknown backend {backend!r}: parametric or llm")
    if not 0 <= int(heldout_size) <= MAX_HELDOUT_SIZE:
        raise ValueError(f"heldout_size must be in [0, {MAX_HELDOUT_SIZE}]")
    heldout = heldout_tasks(family_list, int(heldout_size))
    return SimulatorState(engine, backend, policy, base, status, max_attempts=int(max_attempts), heldout=heldout)
