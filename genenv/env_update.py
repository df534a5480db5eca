"""The environment policy's update: reward-weighted regression, one rule for both backends.

Given D_env samples (context -> generated task) with weights w_i proportional to
exp(lambda * R_env), maximise  sum_i w_i log pi_env(task_i | context_i)
                               - kl_coef * KL(pi_env || pi_env_initial),
and stop an update before it moves pi_env further than `kl_cap` from where it started.

- parametric: weighted maximum likelihood of the knob settings (closed-form gradients).
- LLM: weighted SFT on the generated text (loss on the generation only), the KL penalty
  measured token by token against the initial simulator, AdamW, the cap checked after every
  optimizer step with the sampled-token estimate of KL(pi_before || pi_now) (the generations
  were sampled from the simulator, so their tokens are samples of pi_before). Past the cap the
  last step is undone from AdamW's own moments (undo_adamw_step), not from a copy of the weights.

At GPU scale (7B on one 80 GB card): weights in bf16 (`dtype`), activation checkpointing, and
the frozen reference in bf16 beside the model or offloaded to CPU memory layer by layer when the
card has no room for it (reference_placement). Under several processes every rank runs the
update on its share of each step's batch (DDP through accelerate), and they stop together.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coevo.envs.simulator.policies.parametric import ParametricPolicy


@dataclass
class LLMExample:
    #: The generator's chat messages (rendered with the model's chat template).
    messages: list[dict[str, str]]
    #: The generated text after the prefilled assistant prefix.
    output: str
    weight: float


def update_parametric(
    current_path: str | Path, reference_path: str | Path, out_path: str | Path,
    samples: Sequence[tuple[str, dict[str, Any]]], weights: Sequence[float],
    *, lr: float, steps: int, kl_coef: float, kl_cap: float, likelihood_scale: float = 1.0,
) -> dict[str, float]:
    """Fit the knob distribution to the weighted samples; saves the new policy to out_path."""
    import json

    current = ParametricPolicy.from_json(json.loads(Path(current_path).read_text()))
    reference = ParametricPolicy.from_json(json.loads(Path(reference_path).read_text()))
    new, stats = current.fit_weighted(samples, weights, reference=reference, lr=lr, steps=steps,
                                      kl_coef=kl_coef, kl_cap=kl_cap, likelihood_scale=likelihood_scale)
    new.save(out_path)
    return {**stats, "samples": float(len(samples))}


def _encode(tokenizer: Any, example: LLMExample, prefix: str, max_length: int) -> tuple[list[int], list[int]]:
    prompt = tokenizer.apply_chat_template(example.messages, tokenize=False, add_generation_prompt=True) + prefix
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    output_ids = tokenizer(example.output, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
    ids = (prompt_ids + output_ids)[-max_length:]
    labels = ([-100] * len(prompt_ids) + output_ids)[-max_length:]
    return ids, labels


def answer_logprobs(logits: Any, labels: Any) -> tuple[Any, Any, Any]:
    """Next-token log-probabilities at the answer's positions only (labels != -100): the rows
    of the vocabulary-wide log-softmax there (n, V), the label tokens' log-probabilities (n,)
    in row-major order, and the (batch, length - 1) mask of those positions. Taking the softmax
    over every prompt position as well was most of an update's memory (8 x ~1,000 positions x
    49,152 tokens x 4 bytes for each of several tensors: a SmolLM2 simulator update passed 16 GB)."""
    import torch

    shifted, targets = logits[:, :-1], labels[:, 1:]
    valid = targets != -100
    logp = torch.log_softmax(shifted[valid].float(), dim=-1)
    picked = logp.gather(-1, targets[valid].unsqueeze(-1)).squeeze(-1)
    return logp, picked, valid


def _per_row(values: Any, valid: Any) -> Any:
    """Sums of per-position values (in row-major order of `valid`) for each row of the batch."""
    import torch

    rows = valid.nonzero()[:, 0]
    return torch.zeros(valid.shape[0], dtype=values.dtype, device=values.device).index_add(0, rows, values)


def _k3(logp_before: Any, logp_now: Any) -> Any:
    """Per-token KL(before || now) estimate on tokens sampled from `before`: mean of
    r - 1 - log r with r = p_now / p_before (unbiased, never negative)."""
    log_ratio = logp_now - logp_before
    return (log_ratio.exp() - 1 - log_ratio).mean()


#: Reference-model placements (reference_placement): "auto" decides by free accelerator memory.
REFERENCE_PLACEMENTS = ("auto", "device", "cpu_offload")
#: Weight dtypes of the LLM update ("auto": bf16 on a CUDA device with bf16, else fp32).
DTYPES = ("auto", "bfloat16", "float32")


def update_dtype(setting: str, device_type: str, bf16_supported: bool) -> str:
    """The dtype the simulator's weights are trained in: bf16 halves weights, gradients and AdamW
    moments (a 7B model: 54 GB instead of 108), where the device computes in bf16 natively."""
    if setting not in DTYPES:
        raise ValueError(f"dtype is one of {', '.join(DTYPES)}, got {setting!r}")
    if setting != "auto":
        return setting
    return "bfloat16" if device_type == "cuda" and bf16_supported else "float32"


def reference_placement(setting: str, device_type: str, free_bytes: int | None, reference_bytes: int,
                        headroom_bytes: int) -> str:
    """Where the frozen reference model lives during the update: "device" (beside the model) or
    "cpu_offload" (in CPU memory, each layer moved to the device for its forward pass: slower,
    but it leaves the card to the trained model). "auto": on the device when the card has the
    reference's size plus `headroom_bytes` free (the caller counts in what is still to come:
    gradients, AdamW's moments, activations); a CPU run has nothing to offload to."""
    if setting not in REFERENCE_PLACEMENTS:
        raise ValueError(f"reference placement is one of {', '.join(REFERENCE_PLACEMENTS)}, got {setting!r}")
    if device_type == "cpu":
        return "device"
    if setting != "auto":
        return setting
    if free_bytes is None:
        return "device"
    return "device" if free_bytes >= reference_bytes + headroom_bytes else "cpu_offload"


def _model_bytes(model: Any) -> int:
    return sum(p.numel() * p.element_size() for p in model.parameters())


def _place_reference(reference: Any, setting: str, device: Any, headroom_bytes: int) -> str:
    import torch

    free = torch.cuda.mem_get_info(device)[0] if device.type == "cuda" else None
    where = reference_placement(setting, device.type, free, _model_bytes(reference), headroom_bytes)
    if where == "cpu_offload":
        from accelerate import cpu_offload

        cpu_offload(reference, execution_device=device)
    else:
        reference.to(device)
    return where


def _my_rows(indices: list[int], process: int, processes: int) -> list[int]:
    """This process's share of a step's batch (every process gets at least one row, so all take
    part in every step's gradient all-reduce)."""
    mine = indices[process::processes]
    return mine or indices[process % len(indices):][:1]


def update_llm(
    model_dir: str | Path, reference_dir: str | Path | None, out_dir: str | Path,
    examples: Sequence[LLMExample], *, lr: float, steps: int, batch_size: int,
    kl_coef: float, kl_cap: float, prefix: str, max_length: int = 1024, seed: int = 0,
    likelihood_scale: float = 1.0, bf16: bool = False, dtype: str = "auto", reference: str = "auto",
    gradient_checkpointing: bool = False, reference_headroom_gb: float = 8.0,
) -> dict[str, float]:
    """Weighted SFT of a model (its loss times `likelihood_scale`) with a KL penalty to
    `reference_dir` (None: no penalty, e.g. a warm-up) and the per-update cap; saves the model
    to out_dir (the main process). Every process of a distributed run must call it with the same
    examples: each step's batch is split between them. `dtype`: the weights' (see update_dtype);
    `bf16`: forward passes under bf16 autocast besides; `reference`: see reference_placement.
    Stats: `nll_first` and `nll` are the batch NLL at the first and the last step."""
    import contextlib
    import logging

    import torch
    from accelerate import Accelerator
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from coevo.genenv.adamw_undo import undo_adamw_step

    if not examples:
        raise ValueError("no examples to train on")
    accelerator = Accelerator()
    device = accelerator.device
    chosen = update_dtype(dtype, device.type, device.type == "cuda" and torch.cuda.is_bf16_supported())
    torch_dtype = getattr(torch, chosen)
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch_dtype)
    if gradient_checkpointing:
        model.gradient_checkpointing_enable()
        model.config.use_cache = False
    total_w = sum(e.weight for e in examples)
    encoded = [_encode(tokenizer, e, prefix, max_length) for e in examples]
    weights = [e.weight / total_w * len(examples) for e in examples]  # mean weight 1

    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    # Every process prepares (DDP's wrapper broadcasts the weights: a collective).
    model, optimizer = accelerator.prepare(model, optimizer)
    plain = accelerator.unwrap_model(model)  # for forward passes without gradients (no DDP hooks)
    ref_model, placed = None, "none"
    if reference_dir is not None and kl_coef > 0:
        ref_model = AutoModelForCausalLM.from_pretrained(str(reference_dir), dtype=torch_dtype).eval()
        ref_model.requires_grad_(False)
        # Gradients and AdamW's two moments are made at the first step, after this choice: count them.
        later = 3 * _model_bytes(plain)
        placed = _place_reference(ref_model, reference, device, int(reference_headroom_gb * 2**30) + later)
    generator = torch.Generator().manual_seed(seed)

    def autocast() -> contextlib.AbstractContextManager[Any]:
        return torch.autocast(device.type, dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()

    def batch(indices: list[int]) -> tuple[torch.Tensor, ...]:
        width = max(len(encoded[i][0]) for i in indices)
        ids = torch.full((len(indices), width), tokenizer.pad_token_id, dtype=torch.long)
        labels = torch.full((len(indices), width), -100, dtype=torch.long)
        mask = torch.zeros((len(indices), width), dtype=torch.long)
        for row, i in enumerate(indices):
            seq, lab = encoded[i]
            ids[row, :len(seq)], labels[row, :len(lab)], mask[row, :len(seq)] = (
                torch.tensor(seq), torch.tensor(lab), 1)
        w = torch.tensor([weights[i] for i in indices], dtype=torch.float32)
        return ids.to(device), labels.to(device), mask.to(device), w.to(device)

    # Token log-probs before the update, for the cap (none to keep without one).
    has_cap = math.isfinite(kl_cap)
    order = list(range(len(examples))) if has_cap else []
    before: dict[int, torch.Tensor] = {}
    plain.eval()
    with torch.no_grad():
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            ids, labels, mask, _ = batch(idx)
            with autocast():
                logits = plain(input_ids=ids, attention_mask=mask).logits
            _, picked, valid = answer_logprobs(logits, labels)
            for i, part in zip(idx, torch.split(picked, valid.sum(dim=1).tolist())):
                before[i] = part.detach()

    model.train()
    stats = {"samples": float(len(examples)), "steps": 0.0, "loss": math.nan, "nll_first": math.nan,
             "nll": math.nan, "kl_ref": 0.0, "kl_step": 0.0, "capped": 0.0,
             "processes": float(accelerator.num_processes)}
    for step in range(steps):
        perm = torch.randperm(len(examples), generator=generator).tolist()  # the same on every process
        idx = _my_rows(perm[:batch_size], accelerator.process_index, accelerator.num_processes)
        ids, labels, mask, w = batch(idx)
        with autocast():
            logits = model(input_ids=ids, attention_mask=mask).logits
        logp, picked, valid = answer_logprobs(logits, labels)
        count = valid.sum(dim=1).clamp(min=1)
        nll = -(_per_row(picked, valid) / count)
        loss = likelihood_scale * (w * nll).mean()
        kl_ref = torch.tensor(0.0, device=device)
        if ref_model is not None:
            with torch.no_grad(), autocast():
                ref_logits = ref_model(input_ids=ids, attention_mask=mask).logits
                ref_logp = torch.log_softmax(ref_logits[:, :-1][valid.to(ref_logits.device)].float(), dim=-1)
            del ref_logits
            ref_logp = ref_logp.to(logp.device)
            per_token = (logp.exp() * (logp - ref_logp)).sum(-1)
            kl_ref = (_per_row(per_token, valid) / count).mean()
            loss = loss + kl_coef * kl_ref
        # The cap: how far the current weights already are from the pre-update policy (averaged
        # over the processes' rows, so all decide alike). Past it, undo the last step and stop.
        kl_step = torch.tensor(0.0, device=device)
        if has_cap:
            now = torch.split(picked.detach(), valid.sum(dim=1).tolist())
            kl_step = torch.stack([_k3(before[i], part) for i, part in zip(idx, now)]).mean()
            if accelerator.num_processes > 1:
                kl_step = accelerator.reduce(kl_step, reduction="mean")
        if step > 0 and kl_step.item() > kl_cap:
            undo_adamw_step(optimizer.optimizer if hasattr(optimizer, "optimizer") else optimizer)
            stats.update(capped=1.0, steps=float(step - 1))
            break
        optimizer.zero_grad()
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if step == 0:
            stats["nll_first"] = float(nll.mean().item())
        stats.update(steps=float(step + 1), loss=float(loss.item()), nll=float(nll.mean().item()),
                     kl_ref=float(kl_ref.item()), kl_step=float(kl_step.item()))
    logging.getLogger(__name__).info(
        "pi_env update on process %d of %d: %d steps, %s weights, reference %s", accelerator.process_index,
        accelerator.num_processes, int(stats["steps"]), chosen, placed)
    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        accelerator.unwrap_model(model).save_pretrained(out)
        tokenizer.save_pretrained(out)
    accelerator.wait_for_everyone()
    return stats
