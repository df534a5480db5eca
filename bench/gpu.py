"""Generation on a GPU with the transformers backend: prefill and decode rates of the default
model (SmolLM2-135M-Instruct, bf16) and their fractions of the chip's limits, plus the two
workloads the trainers wait on: a held-out evaluation (200 BFCL first turns, greedy, one batched
pass) and a GRPO sampling pass (240 completions: 30 prompts x 8 at temperature 1). The
evaluation runs twice: as one raw `generate` call, and through the transformers policy the
held-out scoring uses (chat template, prompt budget, stop rules: `eval_200_policy_s`), so the
policy's own cost on the chip shows as `policy_overhead` (policy time / raw time).

    python bench/gpu.py --json [--n-eval 200] [--prompts 30] [--group 8] [--model tiny]

Limits come from bench/data/accelerators.json (bandwidth for decode, bf16 tensor throughput for
prefill). Decode at batch B reads the weights once per step, so its bandwidth fraction is
steps/s x weight bytes / bandwidth; prefill's compute fraction is tokens/s x 2 FLOP per weight /
peak. Targets on an H200 (issue 37): eval_200_s <= 5, grpo_240_s <= 2. On a CPU the figures are
printed without limits or targets.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from policy import bench_conversations  # noqa: E402

ACCELERATORS = Path(__file__).parent / "data" / "accelerators.json"
TARGETS = {"eval_200_s": 5.0, "grpo_240_s": 2.0}


def limits(device_name: str) -> dict[str, float] | None:
    table = {k: v for k, v in json.loads(ACCELERATORS.read_text()).items() if not k.startswith("_")}
    for key in sorted(table, key=len, reverse=True):
        if key.lower() in device_name.lower():
            return dict(table[key])
    return None


def synchronize(device: str) -> None:
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


def timed(device: str, work: Any) -> tuple[float, Any]:
    synchronize(device)
    t0 = time.perf_counter()
    out = work()
    synchronize(device)
    return time.perf_counter() - t0, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--n-eval", type=int, default=200, help="first turns in the evaluation workload")
    parser.add_argument("--prompts", type=int, default=30, help="GRPO workload: prompts")
    parser.add_argument("--group", type=int, default=8, help="GRPO workload: completions per prompt")
    parser.add_argument("--new-tokens", type=int, default=64, help="tokens decoded per reply")
    parser.add_argument(
        "--model", default="", help="model directory, or tiny (a tiny random model, for a smoke run); default SmolLM2"
    )
    args = parser.parse_args()
    with contextlib.redirect_stdout(sys.stderr):  # loading bars and warnings; stdout stays the JSON
        report = measure(args)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for key, value in report.items():
            print(f"{key}: {value}")


def measure(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from coevo.models.checkpoints import default_model_dir

    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    if args.model == "tiny":
        import tempfile

        from coevo.models.tiny import build_tiny_model

        model_dir = build_tiny_model(Path(tempfile.mkdtemp(prefix="coevo-gpu-bench-")) / "tiny")
    else:
        model_dir = Path(args.model) if args.model else default_model_dir()
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    model = AutoModelForCausalLM.from_pretrained(str(model_dir), dtype=dtype).to(device).eval()
    params = sum(p.numel() for p in model.parameters())
    weight_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    conversations = bench_conversations(max(args.n_eval, args.prompts))
    texts = [
        tokenizer.apply_chat_template([dict(m) for m in c], tokenize=False, add_generation_prompt=True)
        for c in conversations
    ]

    def batch(rows: list[str]) -> Any:
        return tokenizer(rows, return_tensors="pt", padding=True, padding_side="left", add_special_tokens=False).to(
            device
        )

    def generate(rows: list[str], *, sample: bool, group: int = 1, min_new: int = 0) -> tuple[float, int]:
        inputs = batch(rows)
        with torch.no_grad():
            seconds, out = timed(device, lambda: model.generate(
                **inputs, max_new_tokens=args.new_tokens, min_new_tokens=min_new, do_sample=sample,
                temperature=1.0 if sample else None, top_p=None, top_k=None, num_return_sequences=group,
                pad_token_id=tokenizer.pad_token_id,
            ))  # fmt: skip
        return seconds, int(out.shape[0])

    generate(texts[:8], sample=False)  # warm-up: kernels, allocator
    prefill_inputs = batch(texts[:32])
    with torch.no_grad():
        prefill_s, _ = timed(device, lambda: model(**prefill_inputs, use_cache=True))
    prefill_tokens = int(prefill_inputs["attention_mask"].sum())
    decode = {}
    for size in (1, 8, 64):
        rows = texts[:size]
        seconds, _ = generate(rows, sample=False, min_new=args.new_tokens)
        first = batch(rows)
        with torch.no_grad():
            first_s, _ = timed(device, lambda first=first: model(**first, use_cache=True))
        steps_per_s = args.new_tokens / max(seconds - first_s, 1e-9)
        decode[size] = {"tok_per_s": steps_per_s * size, "steps_per_s": steps_per_s}
    eval_s, eval_rows = generate(texts[: args.n_eval], sample=False)
    grpo_s, grpo_rows = generate(texts[: args.prompts], sample=True, group=args.group)
    policy_s = policy_eval(model, tokenizer, conversations[: args.n_eval], args.new_tokens, device)

    report: dict[str, Any] = {
        "device": torch.cuda.get_device_name() if device == "cuda" else "cpu",
        "dtype": str(dtype).replace("torch.", ""),
        "torch": torch.__version__,
        "params": params,
        "prefill_tok_per_s": prefill_tokens / prefill_s,
        "decode": {str(k): v for k, v in decode.items()},
        "eval_rows": eval_rows,
        "eval_200_s": eval_s,
        "eval_200_policy_s": policy_s,
        "policy_overhead": policy_s / eval_s,
        "grpo_rows": grpo_rows,
        "grpo_240_s": grpo_s,
    }
    chip = limits(report["device"]) if device == "cuda" else None
    if chip is not None:
        report["limits"] = chip
        report["prefill_compute_fraction"] = report["prefill_tok_per_s"] * 2 * params / (chip["bf16_tflops"] * 1e12)
        for row in decode.values():
            row["bandwidth_fraction"] = row["steps_per_s"] * weight_bytes / (chip["bandwidth_gb_s"] * 1e9)
        report["targets"] = TARGETS
        report["targets_met"] = all(report[k] <= v for k, v in TARGETS.items())
    else:
        report["targets_met"] = None  # targets are for a GPU (an H200)
    return report


def policy_eval(model: Any, tokenizer: Any, conversations: list[Any], new_tokens: int, device: str) -> float:
    """Seconds for greedy replies to `conversations` through TransformersPolicy in one batch: the
    path held-out scoring takes, stop rules included (no prefix cache: first turns only)."""
    from coevo.client.policies.base import PolicyRequest, Sampling
    from coevo.client.policies.hf import TransformersPolicy

    policy = TransformersPolicy(
        (model, tokenizer), sampling=Sampling(max_new_tokens=new_tokens), max_batch_size=len(conversations),
        max_prompt_tokens=4096, prefix_cache=False,
    )  # fmt: skip
    requests = [PolicyRequest([dict(m) for m in c], "bfcl") for c in conversations]  # type: ignore[misc]
    seconds, _ = timed(device, lambda: policy.generate(requests))
    return seconds


if __name__ == "__main__":
    main()
