"""One learning stage: TRL's SFTTrainer on pre-tokenized examples, with a per-trajectory weight.

The loss is the weighted token-level negative log-likelihood of the trained assistant tokens,

    L(θ) = - Σ_i w_i Σ_t m_it log π_θ(y_it | y_i<t) / Σ_i Σ_t m_it

which, with w_i = r(τ_i), is the AgentEvol objective E_{τ∈D}[r(τ) log π_θ(τ)] estimated per
token; with w_i ∈ {0, 1} it is plain SFT on the filtered set (the BC stage and the `filter`
objective). Accelerate drives the loop, so `accelerate launch` spreads it over GPUs; checkpoints
are saved each epoch and a restarted stage resumes from the newest one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coevo.agentevol.data import IGNORE, Example, dataset_rows

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from coevo.agentevol.config import AgentEvolConfig


@dataclass
class WeightedCollator:
    """Right-pads a batch and carries each example's weight along."""

    pad_token_id: int

    def __call__(self, examples: list[dict[str, Any]]) -> dict[str, Any]:
        import torch

        width = max(len(e["input_ids"]) for e in examples)
        input_ids = torch.full((len(examples), width), self.pad_token_id, dtype=torch.long)
        labels = torch.full((len(examples), width), IGNORE, dtype=torch.long)
        attention_mask = torch.zeros((len(examples), width), dtype=torch.long)
        for row, e in enumerate(examples):
            n = len(e["input_ids"])
            input_ids[row, :n] = torch.tensor(e["input_ids"])
            labels[row, :n] = torch.tensor(e["labels"])
            attention_mask[row, :n] = 1
        weight = torch.tensor([float(e["weight"]) for e in examples], dtype=torch.float32)
        return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels, "weight": weight}


def weighted_nll(logits: Any, labels: Any, weight: Any, num_items: Any | None = None) -> Any:
    """Σ w_i · token NLL over labelled tokens, divided by the number of labelled tokens."""
    import torch.nn.functional as F

    shift_logits = logits[:, :-1, :].float()
    targets = labels[:, 1:].to(shift_logits.device)
    nll = F.cross_entropy(shift_logits.transpose(1, 2), targets, ignore_index=IGNORE, reduction="none")
    mask = (targets != IGNORE).to(nll.dtype)
    weighted = nll * mask * weight.to(nll.device, nll.dtype)[:, None]
    denominator = mask.sum() if num_items is None else num_items
    return weighted.sum() / max(float(denominator), 1.0)


def _trainer_class() -> type:
    from trl import SFTTrainer

    class WeightedSFTTrainer(SFTTrainer):
        """SFTTrainer whose loss weights each trajectory (see the module docstring)."""

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):  # type: ignore[no-untyped-def]
            weight = inputs.pop("weight")
            labels = inputs.pop("labels")
            outputs = model(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"], use_cache=False)
            loss = weighted_nll(outputs.logits, labels, weight, num_items_in_batch)
            if self.args.average_tokens_across_devices and num_items_in_batch is not None:
                loss = loss * self.accelerator.num_processes
            return (loss, outputs) if return_outputs else loss

    return WeightedSFTTrainer


def _bf16(config: AgentEvolConfig) -> bool:
    """The config's bf16, else what the hardware does fast (coevo.hardware: CUDA with bf16, or a
    CPU with native bf16)."""
    from coevo.hardware import use_bf16

    return config.bf16 if config.bf16 is not None else use_bf16("auto")


def _checkpointing(config_class: type, enabled: bool) -> dict[str, Any]:
    """Activation checkpointing set explicitly: TRL turns it on by default, which on a CPU
    costs a second forward pass per step for memory we do not need."""
    import dataclasses

    names = {f.name for f in dataclasses.fields(config_class)}
    key = "activation_checkpointing" if "activation_checkpointing" in names else "gradient_checkpointing"
    return {key: enabled}


@dataclass
class StageResult:
    model: PreTrainedModel
    train_loss: float | None
    steps: int
    examples: int
    trained_tokens: int


def train_stage(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    examples: Sequence[Example],
    config: AgentEvolConfig,
    work_dir: Path,
    *,
    seed: int,
    epochs: float | None = None,
) -> StageResult:
    """Train `model` on `examples` for `epochs` (default config.epochs); resumes from the newest
    checkpoint under `work_dir`."""
    import datasets
    import torch
    from datasets import Dataset
    from transformers.trainer_utils import get_last_checkpoint
    from trl import SFTConfig

    datasets.disable_progress_bars()
    if not examples:
        return StageResult(model, None, 0, 0, 0)
    epochs = config.epochs if epochs is None else epochs
    per_step = config.batch_size * config.grad_accum * max(1, torch.cuda.device_count())
    total_steps = max(1, math.ceil(len(examples) / per_step) * math.ceil(epochs))
    work_dir.mkdir(parents=True, exist_ok=True)
    args = SFTConfig(
        output_dir=str(work_dir),
        num_train_epochs=epochs,
        per_device_train_batch_size=config.batch_size,
        gradient_accumulation_steps=config.grad_accum,
        learning_rate=config.learning_rate,
        lr_scheduler_type=config.lr_scheduler,
        warmup_steps=int(config.warmup_ratio * total_steps),
        weight_decay=config.weight_decay,
        max_grad_norm=config.max_grad_norm,
        max_length=config.max_length,
        bf16=_bf16(config),
        **_checkpointing(SFTConfig, config.gradient_checkpointing),
        logging_steps=1,
        save_strategy="epoch" if config.epoch_checkpoints else "no",
        save_total_limit=1,
        report_to=[],
        remove_unused_columns=False,
        seed=seed,
        data_seed=seed,
        dataloader_num_workers=0,
        disable_tqdm=True,
        use_cpu=not torch.cuda.is_available(),
        ddp_timeout=int(config.dist_timeout_s),
    )
    trainer = _trainer_class()(
        model=model,
        args=args,
        train_dataset=Dataset.from_list(dataset_rows(examples)),
        processing_class=tokenizer,
        data_collator=WeightedCollator(tokenizer.pad_token_id),
    )
    last = get_last_checkpoint(str(work_dir)) if any(work_dir.glob("checkpoint-*")) else None
    output = trainer.train(resume_from_checkpoint=last)
    trained = trainer.accelerator.unwrap_model(trainer.model)
    trained.eval()
    return StageResult(
        model=trained,
        train_loss=float(output.training_loss) if output.training_loss is not None else None,
        steps=int(output.global_step),
        examples=len(examples),
        trained_tokens=sum(e.trained_tokens for e in examples),
    )
