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

import contextlib
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coevo.simulator.policies.parametric import ParametricPolicy


@dataclass
class LLMExample:
    #: The generator's chat messages (rendered with the model's chat template).
    messages: list[dict[str, str]]
    #: The generated text after the prefilled assistant prefix.
    output: str
    weight: float


def update_parametric(
    current_path: str | Path,
    reference_path: str | Path,
    out_path: str | Path,
    samples: Sequence[tuple[str, dict[str, Any]]],
    weights: Sequence[float],
    *,
    lr: float,
    steps: int,
    kl_coef: float,
    kl_cap: float,
    likelihood_scale: float = 1.0,
) -> dict[str, float]:
    """Fit the knob distribution to the weighted samples; saves the new policy to out_path."""
    import json

    current = ParametricPolicy.from_json(json.loads(Path(current_path).read_text()))
    reference = ParametricPolicy.from_json(json.loads(Path(reference_path).read_text()))
    new, stats = current.fit_weighted(
        samples,
        weights,
        reference=reference,
        lr=lr,
        steps=steps,
        kl_coef=kl_coef,
        kl_cap=kl_cap,
        likelihood_scale=likelihood_scale,
    )
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


def reference_placement(
    setting: str, device_type: str, free_bytes: int | None, reference_bytes: int, headroom_bytes: int
) -> str:
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
    return mine or indices[process % len(indices) :][:1]


def _autocast(device: Any, bf16: bool) -> contextlib.AbstractContextManager[Any]:
    """Forward passes under bf16 autocast when asked (on top of the weights' own dtype)."""
    import torch

    return torch.autocast(device.type, dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()


def _load_trained(model_dir: str | Path, torch_dtype: Any, gradient_checkpointing: bool) -> tuple[Any, Any]:
    """The tokenizer (padding with EOS when it has no pad token) and the model to train."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=torch_dtype)
    if gradient_checkpointing:
        model.gradient_checkpointing_enable()
        model.config.use_cache = False
    return tokenizer, model


def _load_reference(
    reference_dir: str | Path | None,
    kl_coef: float,
    torch_dtype: Any,
    trained: Any,
    setting: str,
    device: Any,
    headroom_gb: float,
) -> tuple[Any, str]:
    """The frozen reference model and where it was placed; (None, "none") without a KL penalty."""
    if reference_dir is None or kl_coef <= 0:
        return None, "none"
    from transformers import AutoModelForCausalLM

    ref_model = AutoModelForCausalLM.from_pretrained(str(reference_dir), dtype=torch_dtype).eval()
    ref_model.requires_grad_(False)
    # Gradients and AdamW's two moments are made at the first step, after this choice: count them.
    later = 3 * _model_bytes(trained)
    return ref_model, _place_reference(ref_model, setting, device, int(headroom_gb * 2**30) + later)


@dataclass
class _Batches:
    """The examples encoded once, with weights of mean 1, padded into a batch of any rows."""

    encoded: list[tuple[list[int], list[int]]]
    weights: list[float]
    pad_id: int
    device: Any

    @classmethod
    def of(cls, tokenizer: Any, examples: Sequence[LLMExample], prefix: str, max_length: int, device: Any) -> _Batches:
        total_w = sum(e.weight for e in examples)
        encoded = [_encode(tokenizer, e, prefix, max_length) for e in examples]
        weights = [e.weight / total_w * len(examples) for e in examples]  # mean weight 1
        return cls(encoded, weights, tokenizer.pad_token_id, device)

    def __len__(self) -> int:
        return len(self.encoded)

    def __call__(self, indices: list[int]) -> tuple[Any, Any, Any, Any]:
        """(ids, labels, attention mask, weights) of these rows, on the device."""
        import torch

        width = max(len(self.encoded[i][0]) for i in indices)
        ids = torch.full((len(indices), width), self.pad_id, dtype=torch.long)
        labels = torch.full((len(indices), width), -100, dtype=torch.long)
        mask = torch.zeros((len(indices), width), dtype=torch.long)
        for row, i in enumerate(indices):
            seq, lab = self.encoded[i]
            ids[row, : len(seq)], labels[row, : len(lab)], mask[row, : len(seq)] = (
                torch.tensor(seq),
                torch.tensor(lab),
                1,
            )
        w = torch.tensor([self.weights[i] for i in indices], dtype=torch.float32)
        return ids.to(self.device), labels.to(self.device), mask.to(self.device), w.to(self.device)


def _answer_logprobs_before(plain: Any, batches: _Batches, rows: int, batch_size: int, bf16: bool) -> dict[int, Any]:
    """Each of the first `rows` examples' answer-token log-probabilities under the weights before
    the update: the KL cap's reference point (rows 0 without a cap: nothing to keep)."""
    import torch

    order = list(range(rows))
    before: dict[int, Any] = {}
    plain.eval()
    with torch.no_grad():
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            ids, labels, mask, _ = batches(idx)
            with _autocast(batches.device, bf16):
                logits = plain(input_ids=ids, attention_mask=mask).logits
            _, picked, valid = answer_logprobs(logits, labels)
            for i, part in zip(idx, torch.split(picked, valid.sum(dim=1).tolist())):
                before[i] = part.detach()
    return before


def _kl_to_reference(ref_model: Any, ids: Any, mask: Any, logp: Any, valid: Any, count: Any, bf16: bool) -> Any:
    """KL(pi_now || reference) over the answer tokens, averaged per row then over the batch."""
    import torch

    with torch.no_grad(), _autocast(ids.device, bf16):
        ref_logits = ref_model(input_ids=ids, attention_mask=mask).logits
        ref_logp = torch.log_softmax(ref_logits[:, :-1][valid.to(ref_logits.device)].float(), dim=-1)
    del ref_logits
    ref_logp = ref_logp.to(logp.device)
    per_token = (logp.exp() * (logp - ref_logp)).sum(-1)
    return (_per_row(per_token, valid) / count).mean()


def _kl_since_start(before: dict[int, Any], idx: list[int], picked: Any, valid: Any, accelerator: Any) -> Any:
    """How far the current weights already are from the pre-update policy on this step's rows
    (averaged over the processes' rows, so all decide alike about the cap)."""
    import torch

    now = torch.split(picked.detach(), valid.sum(dim=1).tolist())
    kl_step = torch.stack([_k3(before[i], part) for i, part in zip(idx, now)]).mean()
    if accelerator.num_processes > 1:
        kl_step = accelerator.reduce(kl_step, reduction="mean")
    return kl_step


def _train(
    model: Any,
    optimizer: Any,
    accelerator: Any,
    batches: _Batches,
    ref_model: Any,
    before: dict[int, Any],
    *,
    steps: int,
    batch_size: int,
    seed: int,
    kl_coef: float,
    kl_cap: float,
    likelihood_scale: float,
    bf16: bool,
) -> dict[str, float]:
    """The optimizer steps: weighted NLL plus the KL penalty; before each step the cap is checked
    and, past it, the last step is undone and training stops. Returns the update's stats."""
    import torch

    from coevo.genenv.adamw_undo import undo_adamw_step

    device = accelerator.device
    has_cap = math.isfinite(kl_cap)
    generator = torch.Generator().manual_seed(seed)
    model.train()
    stats = {
        "samples": float(len(batches)),
        "steps": 0.0,
        "loss": math.nan,
        "nll_first": math.nan,
        "nll": math.nan,
        "kl_ref": 0.0,
        "kl_step": 0.0,
        "capped": 0.0,
        "processes": float(accelerator.num_processes),
    }
    for step in range(steps):
        perm = torch.randperm(len(batches), generator=generator).tolist()  # the same on every process
        idx = _my_rows(perm[:batch_size], accelerator.process_index, accelerator.num_processes)
        ids, labels, mask, w = batches(idx)
        with _autocast(device, bf16):
            logits = model(input_ids=ids, attention_mask=mask).logits
        logp, picked, valid = answer_logprobs(logits, labels)
        count = valid.sum(dim=1).clamp(min=1)
        nll = -(_per_row(picked, valid) / count)
        loss = likelihood_scale * (w * nll).mean()
        kl_ref = torch.tensor(0.0, device=device)
        if ref_model is not None:
            kl_ref = _kl_to_reference(ref_model, ids, mask, logp, valid, count, bf16)
            loss = loss + kl_coef * kl_ref
        kl_step = (
            _kl_since_start(before, idx, picked, valid, accelerator) if has_cap else torch.tensor(0.0, device=device)
        )
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
        stats.update(
            steps=float(step + 1),
            loss=float(loss.item()),
            nll=float(nll.mean().item()),
            kl_ref=float(kl_ref.item()),
            kl_step=float(kl_step.item()),
        )
    return stats


def _save(accelerator: Any, model: Any, tokenizer: Any, out_dir: str | Path) -> None:
    """The trained model and its tokenizer, written by the main process once all have finished."""
    accelerator.wait_for_everyone()
    if accelerator.is_main_process:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        accelerator.unwrap_model(model).save_pretrained(out)
        tokenizer.save_pretrained(out)
    accelerator.wait_for_everyone()


def update_llm(
    model_dir: str | Path,
    reference_dir: str | Path | None,
    out_dir: str | Path,
    examples: Sequence[LLMExample],
    *,
    lr: float,
    steps: int,
    batch_size: int,
    kl_coef: float,
    kl_cap: float,
    prefix: str,
    max_length: int = 1024,
    seed: int = 0,
    likelihood_scale: float = 1.0,
    bf16: bool = False,
    dtype: str = "auto",
    reference: str = "auto",
    gradient_checkpointing: bool = False,
    reference_headroom_gb: float = 8.0,
) -> dict[str, float]:
    """Weighted SFT of a model (its loss times `likelihood_scale`) with a KL penalty to
    `reference_dir` (None: no penalty, e.g. a warm-up) and the per-update cap; saves the model
    to out_dir (the main process). Every process of a distributed run must call it with the same
    examples: each step's batch is split between them. `dtype`: the weights' (see update_dtype);
    `bf16`: forward passes under bf16 autocast besides; `reference`: see reference_placement.
    Stats: `nll_first` and `nll` are the batch NLL at the first and the last step."""
    import torch
    from accelerate import Accelerator

    if not examples:
        raise ValueError("no examples to train on")
    accelerator = Accelerator()
    device = accelerator.device
    chosen = update_dtype(dtype, device.type, device.type == "cuda" and torch.cuda.is_bf16_supported())
    torch_dtype = getattr(torch, chosen)
    tokenizer, model = _load_trained(model_dir, torch_dtype, gradient_checkpointing)
    batches = _Batches.of(tokenizer, examples, prefix, max_length, device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    # Every process prepares (DDP's wrapper broadcasts the weights: a collective).
    model, optimizer = accelerator.prepare(model, optimizer)
    plain = accelerator.unwrap_model(model)  # for forward passes without gradients (no DDP hooks)
    ref_model, placed = _load_reference(
        reference_dir, kl_coef, torch_dtype, plain, reference, device, reference_headroom_gb
    )
    rows = len(examples) if math.isfinite(kl_cap) else 0
    before = _answer_logprobs_before(plain, batches, rows, batch_size, bf16)
    stats = _train(
        model,
        optimizer,
        accelerator,
        batches,
        ref_model,
        before,
        steps=steps,
        batch_size=batch_size,
        seed=seed,
        kl_coef=kl_coef,
        kl_cap=kl_cap,
        likelihood_scale=likelihood_scale,
        bf16=bf16,
    )
    logging.getLogger(__name__).info(
        "pi_env update on process %d of %d: %d steps, %s weights, reference %s",
        accelerator.process_index,
        accelerator.num_processes,
        int(stats["steps"]),
        chosen,
        placed,
    )
    _save(accelerator, model, tokenizer, out_dir)
    return stats
