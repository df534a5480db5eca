"""Training-step benchmark: one optimizer step of the default model in fp32 against bf16 autocast,
interleaved in one process, so the ratio holds on a shared machine.

What coevo.hardware's `bf16=auto` rests on: on a CPU with native bf16 (AMX, AVX-512 BF16) a step
under autocast is several times faster; with AVX2 alone it is slower. Both trainers train this
way (GenEnv's warm-up and GRPO, AgentEvol's BC and learning stages).

    python bench/train_step.py --json [--model smollm2] [--tokens 800] [--batch 2] [--rounds 3]
Prints the step seconds of each precision, the ratio fp32/bf16, the loss of both on the same
batch, the CPU flags that decide `auto`, and what `auto` picks here.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

from coevo import hardware


def step_seconds(model: Any, optimizer: Any, ids: Any, bf16: bool) -> tuple[float, float]:
    """(seconds, loss) of one forward, backward and optimizer step on `ids`."""
    import torch

    t = time.perf_counter()
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return time.perf_counter() - t, float(loss.item())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--model", default="smollm2", help="smollm2, tiny (built in runs/), or a model directory")
    parser.add_argument("--tokens", type=int, default=800, help="tokens per row (a BFCL first turn is ~700)")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved measured steps of each precision")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    import torch
    from transformers import AutoModelForCausalLM

    from coevo.models.checkpoints import resolve_model

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    tiny_dir = os.path.join("runs", "bench-train-step-tiny")
    model = AutoModelForCausalLM.from_pretrained(resolve_model(args.model, tiny_dir), dtype=torch.float32)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-6)
    ids = torch.randint(100, model.config.vocab_size - 100, (args.batch, args.tokens))
    step_seconds(model, optimizer, ids, False)  # warm-up: allocations and oneDNN's kernel choice
    step_seconds(model, optimizer, ids, True)
    times: dict[bool, list[float]] = {False: [], True: []}
    losses: dict[bool, float] = {}
    for _ in range(args.rounds):
        for bf16 in (False, True):
            seconds, losses[bf16] = step_seconds(model, optimizer, ids, bf16)
            times[bf16].append(seconds)
    fp32, bf16 = statistics.median(times[False]), statistics.median(times[True])
    flags = sorted(hardware.cpu_flags() & {"avx2", "avx512f", "avx512_bf16", "amx_bf16", "amx_tile"})
    report = {
        "model": args.model, "batch": args.batch, "tokens": args.tokens, "threads": args.threads,
        "fp32_step_s": round(fp32, 3), "bf16_step_s": round(bf16, 3), "fp32_over_bf16": round(fp32 / bf16, 2),
        "fp32_steps_s": [round(t, 3) for t in times[False]], "bf16_steps_s": [round(t, 3) for t in times[True]],
        "loss_fp32": round(losses[False], 4), "loss_bf16": round(losses[True], 4),
        "cpu_flags": flags, "auto_picks_bf16": hardware.use_bf16("auto"),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }  # fmt: skip
    if args.json:
        json.dump(report, sys.stdout)
        print()
    else:
        for key, value in report.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
