"""A local model on vLLM (GPU hosts where it is installed), behind the same policy interface as
transformers and llama.cpp: the same prompts, budget and end-of-reply rules (local.py).

Trainers run it colocated: one vLLM engine per process, on the GPU the trainer trains on, holding
`gpu_memory_utilization` of its memory. The first policy made from an in-memory model starts the
engine from a copy of the checkpoint (written once under the trainer's workdir); every later one
reuses the engine and loads the model's current weights into it in place (`sync_weights`, as
TRL's colocated GRPO does), so a trainer syncs after each update instead of restarting vLLM.

vLLM cannot run the Python stop rules token by token; a reply stops at the end-of-turn tokens or
the token budget and is then cut where the other engines would have stopped (local.cut_reply).
Not exercised in CI (vLLM needs CUDA); the engine choice (factory.choose_backend) and the
sampling translation are.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coevo.client.policies.base import PolicyRequest, Sampling
from coevo.client.policies.local import ChatModelPolicy, cut_reply
from coevo.models.checkpoints import read_prompt_options
from coevo.models.vllm_engine import engine_for, engine_started, load_weights, vllm_installed

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

log = logging.getLogger(__name__)


def sampling_params(sampling: Sampling, stop_ids: Sequence[int], seed: int | None) -> dict[str, Any]:
    """vLLM SamplingParams fields for one of our Sampling settings (greedy: temperature 0)."""
    params: dict[str, Any] = {
        "max_tokens": sampling.max_new_tokens,
        "stop_token_ids": list(stop_ids),
        "skip_special_tokens": True,
    }
    if sampling.greedy:
        params["temperature"] = 0.0
    else:
        params.update(
            temperature=sampling.temperature, top_p=sampling.top_p, top_k=sampling.top_k or -1, min_p=sampling.min_p
        )
    if seed is not None:
        params["seed"] = seed
    return params


class VLLMPolicy(ChatModelPolicy):
    """Generates replies with a vLLM engine started from `model` (a checkpoint directory)."""

    def __init__(
        self, model: str | Path, *, tokenizer: PreTrainedTokenizerBase | None = None, name: str | None = None,
        sampling: Sampling | None = None, max_batch_size: int = 64, max_prompt_tokens: int = 4096,
        max_cached_episodes: int = 256, seed: int | None = None, gpu_memory_utilization: float = 0.3,
        max_reply_tokens: int = 1024,
    ) -> None:  # fmt: skip
        if not vllm_installed():
            raise ValueError("the vllm backend needs vllm installed (and a CUDA GPU)")
        from transformers import AutoTokenizer

        tokenizer = tokenizer or AutoTokenizer.from_pretrained(str(model))
        super().__init__(
            tokenizer, name=name or Path(model).name, sampling=sampling, max_batch_size=max_batch_size,
            max_prompt_tokens=max_prompt_tokens, max_cached_episodes=max_cached_episodes,
        )  # fmt: skip
        self.prompt_options = read_prompt_options(model)
        self.model_dir = str(Path(model).resolve())
        self.seed = seed
        self.engine = engine_for(self.model_dir, gpu_memory_utilization, max_prompt_tokens + max_reply_tokens)
        #: Seconds the last weight sync took, for logs.
        self.last_sync_s: float | None = None

    @classmethod
    def from_model(
        cls, model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, workdir: str | Path, **options: Any
    ) -> VLLMPolicy:
        """A policy serving a trainer's in-memory model: the process's colocated engine, started
        from a copy of the checkpoint under workdir the first time and synced to `model`'s
        current weights every time."""
        started = time.perf_counter()
        target = Path(workdir) / "vllm-model"
        if not (target / "config.json").is_file():
            model.save_pretrained(target)
            tokenizer.save_pretrained(target)
        options.setdefault("name", "model")
        fresh = not engine_started()
        policy = cls(target, tokenizer=tokenizer, **options)
        if not fresh:  # the engine holds an earlier checkpoint's weights
            policy.sync_weights(model)
        policy.last_sync_s = time.perf_counter() - started
        return policy

    def sync_weights(self, model: PreTrainedModel) -> float:
        """Load `model`'s current weights into the engine in place and drop its prefix cache."""
        started = time.perf_counter()
        with self._busy:
            load_weights(self.engine, model.named_parameters())
        self.last_sync_s = time.perf_counter() - started
        log.info("vLLM: weights synced in %.2fs", self.last_sync_s)
        return self.last_sync_s

    def _generate(self, requests: Sequence[PolicyRequest], sampling: Sampling) -> list[str]:
        from vllm import SamplingParams

        self.check_cancelled()
        prompts = [{"prompt_token_ids": ids} for ids in self.prompts_for(requests)]
        params = SamplingParams(
            **sampling_params(sampling, self._stop_ids, sampling.seed if sampling.seed is not None else self.seed)
        )
        outputs = self.engine.generate(prompts, sampling_params=params, use_tqdm=False)
        return [
            cut_reply(self.decode(out.outputs[0].token_ids), self.single_line(r)).strip()
            for out, r in zip(outputs, requests)
        ]

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name, "kind": "vllm", "model": self.model_dir, "max_prompt_tokens": self.max_prompt_tokens,
            "max_batch_size": self.max_batch_size,
        }  # fmt: skip
