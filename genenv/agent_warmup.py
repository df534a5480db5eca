"""The agent's SFT warm-up: gold answers of tasks the initial simulator generated, in exactly
the prompts GRPO will show, before co-evolution starts.

Why: GRPO learns only from groups whose rewards differ. A small model that never writes a
right answer at the start (SmolLM2-135M: 0 of 200 completions on the cpu-demo's first tasks)
gives every group equal rewards, so neither the agent nor pi_env (whose band filter drops
p_hat = 0) learns anything. The paper's agent is a 7B instruction model that already knows
the format, and its D_train starts with base data; a few SFT steps on base data give a small
model the same start. Every arm starts from the warmed model, so the comparison stays fair.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path

from coevo.genenv.agent_prompts import AgentPrompts
from coevo.genenv.config import GenEnvConfig
from coevo.genenv.env_update import LLMExample, update_llm
from coevo.genenv.simulator import Simulator
from coevo.hardware import use_bf16

log = logging.getLogger(__name__)


def warm_up_agent(source: str, target: Path, simulator: Simulator, config: GenEnvConfig, seed: int) -> dict[str, float]:
    """SFT of the model in `source` on `config.agent_warmup_tasks` tasks that `simulator`
    generates with `seed` (loss on the answer only); saves the model to `target`."""
    batch = simulator.generate(config.agent_warmup_tasks, seed)
    prompts = AgentPrompts(config, simulator)
    examples = []
    for task in batch.tasks:
        answer = simulator.expert(task.task_id)
        if answer:
            examples.append(LLMExample(prompts.messages(task), answer, 1.0))
    if not examples:
        raise RuntimeError(
            f"the agent warm-up found no generated task with a gold answer ({batch.valid} valid of "
            f"{batch.attempts} generated)"
        )
    over = answers_over_budget(source, [e.output for e in examples], config.max_completion_length)
    if over:
        log.warning(
            "%d of %d gold answers are longer than max_completion_length=%d tokens: tasks like them "
            "cannot be solved within the completion budget",
            over,
            len(examples),
            config.max_completion_length,
        )
    stats = update_llm(
        source,
        None,
        target,
        examples,
        lr=config.agent_warmup_lr,
        steps=config.agent_warmup_steps,
        batch_size=config.agent_warmup_batch_size,
        kl_coef=0.0,
        kl_cap=math.inf,
        prefix="",
        seed=seed,
        bf16=use_bf16(config.bf16),
    )
    return {
        **stats,
        "tasks": float(len(batch.tasks)),
        "examples": float(len(examples)),
        "answers_over_budget": float(over),
    }


def answers_over_budget(model_dir: str, answers: list[str], budget: int) -> int:
    """How many `answers` need more than `budget` tokens. A completion cut at the budget cannot
    be right, so tasks like them are unsolvable however good the agent gets. Leave slack: the
    agent's own spelling of an answer often takes a token or two more than the gold one (the
    cpu-demo's first 20-token budget cut off three-argument calls whose gold fits in 19)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    return sum(len(tokenizer(a, add_special_tokens=False)["input_ids"]) > budget for a in answers)
