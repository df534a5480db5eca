"""Local-policy benchmark: transformers against the llama.cpp backend, in one run, on the same
fixed prompts (first turns of BFCL simple_python and ALFWorld valid_unseen episodes, rendered
with the prompts the rollout engine uses) and the same SmolLM2-135M-Instruct weights.

- transformers_tok_per_s_{1,8}, backend_tok_per_s_{1,8}: decode rate (new tokens per second)
  at batch 1 and 8 after the ~500-token prompts, greedy, exactly `--new-tokens` tokens per
  prompt (no stop rules, so both backends do the same work); the prompt's own cost is measured
  apart (*_prompt_tok_per_s_*), since later turns of an episode reuse their prefix. No prefix
  reuse here: every prompt is new to both backends.
- speedup_1, speedup_8: decode rate, backend / transformers, at the same batch size;
  prompt_speedup_{1,8}: the same for prompt tokens.
- greedy_agreement: share of `--agreement-prompts` prompts whose first 32 greedy tokens are
  identical in both backends (transformers in f32; the backend at --precision, default
  f16, with its KV cache in f16 unless --kv-type f32); agreement_tokens: share of agreeing
  tokens before the first difference; *_f32: the same with f32 weights in the backend.
- first_turns_s_{shared,unshared}, prefix_share_speedup: wall time to answer every prompt's
  first token, in rounds of 8 as an evaluation sends them, with the backend copying the KV of
  the prompt sharing the longest prefix (the instructions and worked example every episode of
  an env starts with) or computing every prompt whole; prompt_share_copied: the share of prompt
  tokens copied rather than computed. The decode and prompt rates above are measured without it.
- weight_sync_s: a trained checkpoint's weights reach the backend (GGUF export + reload),
  measured on a perturbed copy of the model; synced_outputs_differ says the backend then
  answers as the new weights do, not as the old.
- memory_read_gb_per_s, decode_ceiling_tok_per_s_{1,8}, speedup_ceiling_{1,8}: how fast the
  machine reads memory (best of 5 sums over 1 GiB, all threads) and the decode rate that allows
  when every step reads the backend's weights once (GGUF size, the tied embedding counted once as
  the output matrix) and does nothing else: an upper bound for any backend at that precision;
  speedup_ceiling_* divides it by the transformers rate, i.e. the largest speedup that bound permits.
- matmul_gflop_per_s, flop_per_token, compute_ceiling_tok_per_s, compute_speedup_ceiling_{1,8}:
  the other bound. The machine's f32 matrix-multiply rate (best of 5 2048x2048 products, all
  threads; llama.cpp multiplies f16 weights in f32, converting them as it goes) over one
  token's arithmetic (2 FLOP per weight, the tied embedding counted once as the output matrix;
  attention left out, so this bound is generous); divided by the transformers rate it is the
  largest speedup that bound permits at any batch size.
- bfcl_eval_100_s: wall time of `coevo eval --env bfcl --policy smollm2 --split simple_python
  --n 100` (default backend, server start and model load included), and its success rate. It
  runs first, before this process loads a model: run last, it took 249.9 s where the same
  command took 170.0 s alone right after (bench/results/policy.md, run 8).

    python bench/policy.py --json [--agreement-prompts 100] [--skip-eval]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from measure import log  # noqa: E402

from coevo.client.policies.base import Message, Sampling  # noqa: E402
from coevo.models.gguf_export import DEFAULT_PRECISION, PRECISIONS  # noqa: E402
from coevo.client.policies.prompts import prompt_for  # noqa: E402


def first_turns(env_name: str, split: str, count: int) -> list[list[Message]]:
    """The conversation the rollout engine sends for the first move of `count` tasks spread over a split."""
    from coevo.client.evaluation import spread_indices
    from coevo.envs import registry

    env = registry.make(env_name)
    total = env.splits()[split]
    prompt = prompt_for(env_name, env.action_format, env.action_example, env.agent_prompt)
    conversations = []
    for index in spread_indices(total, count):
        task_id = env.task_ids(split, index, 1)[0]
        result = env.reset(task_id=task_id, seed=0)
        conversations.append(
            prompt.start()
            + [{"role": "user", "content": prompt.render_observation(result.observation, result.info, first=True)}]
        )
    return conversations


def bench_conversations(count: int) -> list[list[Message]]:
    """The benches' fixed prompts: `count` first turns, half BFCL simple_python, the rest ALFWorld valid_unseen."""
    conversations = first_turns("bfcl", "simple_python", count // 2)
    return conversations + first_turns("alfworld", "valid_unseen", count - len(conversations))


def cut_at_stop(rows: list[list[int]], stop_ids: list[int]) -> list[list[int]]:
    """Each row up to its first end-of-turn token (left out)."""
    stops = set(stop_ids)
    return [row[: next((i for i, t in enumerate(row) if t in stops), len(row))] for row in rows]


def in_rounds(generate: Any, prompts: list[list[int]]) -> list[list[int]]:
    """Every prompt through `generate`, in rounds of 8 as an evaluation sends them."""
    return [x for i in range(0, len(prompts), 8) for x in generate(prompts[i : i + 8])]


def transformers_ids(policy: Any, prompts: list[list[int]], new_tokens: int, exact: bool = True) -> list[list[int]]:
    """Greedy tokens from transformers' generate: exactly new_tokens of them (end-of-turn
    suppressed, for timing), or up to new_tokens ending at the first end-of-turn token (for
    comparing outputs; the end-of-turn token itself is left out, as the backend leaves it out)."""
    import torch

    width = max(len(p) for p in prompts)
    pad = policy.tokenizer.pad_token_id
    ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts])
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    with torch.inference_mode():
        out = policy.model.generate(
            input_ids=ids, attention_mask=mask, max_new_tokens=new_tokens, min_new_tokens=new_tokens if exact else None,
            do_sample=False, temperature=None, top_p=None, top_k=None, pad_token_id=pad, eos_token_id=policy._stop_ids,
        )  # fmt: skip
    rows = [row[width:].tolist() for row in out]
    if exact:
        return rows
    return cut_at_stop(rows, policy._stop_ids)


def rates(generate: Any, prompts: list[list[int]], batch: int, new_tokens: int, rounds: int) -> tuple[float, float]:
    """(decode tokens/s, prompt tokens/s) at one batch size, after a warm-up batch. Each round
    times the same `batch` prompts twice: with one new token (the prompt's cost) and with
    `new_tokens` (prompt + decode); decode steps are the difference. Both are reported because
    a first turn is mostly prompt, while later turns of an episode reuse their prefix."""
    generate(prompts[:batch], 2)
    prefill_s = full_s = 0.0
    prompt_tokens = 0
    for r in range(rounds):
        chunk = [prompts[(r * batch + i) % len(prompts)] for i in range(batch)]
        started = time.perf_counter()
        generate(chunk, 1)
        prefill_s += time.perf_counter() - started
        started = time.perf_counter()
        produced = generate(chunk, new_tokens)
        full_s += time.perf_counter() - started
        assert all(len(x) == new_tokens for x in produced)
        prompt_tokens += sum(map(len, chunk))
    decoded = rounds * batch * (new_tokens - 1)
    return decoded / max(1e-9, full_s - prefill_s), prompt_tokens / prefill_s


def agreement(a: list[list[int]], b: list[list[int]], length: int) -> tuple[float, float]:
    """Share of identical outputs (first `length` tokens, or the whole reply when it ends
    sooner), and the share of tokens that agree before the first difference."""
    same = sum(x[:length] == y[:length] for x, y in zip(a, b)) / len(a)
    prefix = total = 0
    for x, y in zip(a, b):
        k = 0
        while k < length and k < len(x) and k < len(y) and x[k] == y[k]:
            k += 1
        prefix += k
        total += min(length, max(len(x), len(y)))
    return same, prefix / max(1, total)


def best_seconds(work: Any, repeats: int) -> float:
    """The shortest of `repeats` timed calls of `work`, after one untimed warm-up call."""
    work()
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def memory_read_gb_per_s(repeats: int = 5) -> float:
    """Memory read bandwidth: the best of `repeats` sums over a 1 GiB tensor (far beyond any
    cache), on torch's threads."""
    import torch

    data = torch.ones(2**28, dtype=torch.float32)
    return data.numel() * data.element_size() / best_seconds(data.sum, repeats) / 1e9


def matmul_gflop_per_s(size: int = 2048, repeats: int = 5) -> float:
    """The f32 matrix-multiply rate: the best of `repeats` size x size products, on torch's threads."""
    import torch

    a, b = torch.randn(size, size), torch.randn(size, size)
    return 2 * size**3 / best_seconds(lambda: a @ b, repeats) / 1e9


def eval_wall_time(n: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "eval.json"
        command = [
            sys.executable, "-m", "coevo.cli", "eval", "--env", "bfcl", "--policy", "smollm2", "--split",
            "simple_python", "--n", str(n), "--out", str(out), "--no-store",
        ]  # fmt: skip
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp)
        wall = time.perf_counter() - started
        document = json.loads(out.read_text())
    return {"wall_s": wall, "success_rate": document["summary"]["success_rate"], "policy": document["policy"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("--agreement-prompts", type=int, default=100)
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3, help="timed batches per (backend, batch size)")
    parser.add_argument("--kv-type", default="f16", choices=["f16", "f32"])
    parser.add_argument(
        "--no-flash-attention", dest="flash_attention", action="store_false", help="the backend's unfused attention"
    )
    parser.add_argument(
        "--precision",
        default=DEFAULT_PRECISION,
        choices=list(PRECISIONS),
        help="the backend's weights (greedy agreement is also measured at f32 when this is lower)",
    )
    parser.add_argument("--eval-n", type=int, default=100)
    parser.add_argument("--skip-eval", action="store_true")
    args = parser.parse_args()

    evaluation: dict[str, Any] = {}
    if not args.skip_eval:  # first: before this process holds models, nothing of it shares the cores
        log(f"coevo eval on {args.eval_n} BFCL simple_python tasks")
        run = eval_wall_time(args.eval_n)
        evaluation = {
            "bfcl_eval_100_s": run["wall_s"], "bfcl_eval_success_rate": run["success_rate"],
            "bfcl_eval_backend": run["policy"].get("kind"),
        }  # fmt: skip

    import torch

    from coevo.client.policies.hf import TransformersPolicy
    from coevo.client.policies.llamacpp import LlamaCppPolicy
    from coevo.models.checkpoints import default_model_dir

    model_dir = default_model_dir()
    threads = len(os.sched_getaffinity(0))
    torch.set_num_threads(threads)
    log(
        f"prompts: {args.agreement_prompts // 2} BFCL + {args.agreement_prompts - args.agreement_prompts // 2} ALFWorld first turns"
    )
    conversations = bench_conversations(args.agreement_prompts)
    hf = TransformersPolicy(model_dir)

    def llama(precision: str = args.precision, share_prefixes: bool = False) -> Any:
        return LlamaCppPolicy(model_dir, kv_type=args.kv_type, threads=threads, max_batch_size=8, max_prompt_tokens=2048,
                              precision=precision, share_prefixes=share_prefixes,
                              flash_attention=args.flash_attention)  # fmt: skip

    backend = llama()
    prompts = [hf.encode(hf.render(c)) for c in conversations]
    greedy = Sampling(temperature=0.0, max_new_tokens=args.new_tokens)

    def run_hf(chunk: list[list[int]], n: int, exact: bool = True) -> list[list[int]]:
        return transformers_ids(hf, chunk, n, exact)

    def run_backend(chunk: list[list[int]], n: int, exact: bool = True) -> list[list[int]]:
        return backend.generate_ids(chunk, greedy.but(max_new_tokens=n), stop="none" if exact else "eos")

    result: dict[str, Any] = {
        "model": model_dir.name, "threads": threads, "new_tokens": args.new_tokens, "kv_type": args.kv_type,
        "precision": args.precision, "flash_attention": args.flash_attention,
        "prompt_tokens_mean": sum(map(len, prompts)) / len(prompts),
    }  # fmt: skip
    for batch in (1, 8):
        for name, fn in (("transformers", run_hf), ("backend", run_backend)):
            log(f"{name}: batch {batch}")
            decode, prefill = rates(fn, prompts, batch, args.new_tokens, args.rounds)
            result[f"{name}_tok_per_s_{batch}"], result[f"{name}_prompt_tok_per_s_{batch}"] = decode, prefill
        result[f"speedup_{batch}"] = result[f"backend_tok_per_s_{batch}"] / result[f"transformers_tok_per_s_{batch}"]
        result[f"prompt_speedup_{batch}"] = (
            result[f"backend_prompt_tok_per_s_{batch}"] / result[f"transformers_prompt_tok_per_s_{batch}"]
        )

    result["memory_read_gb_per_s"] = memory_read_gb_per_s()
    weight_bytes = backend.engine.path.stat().st_size
    result["backend_weight_mb"] = weight_bytes / 1e6
    for batch in (1, 8):
        ceiling = batch * result["memory_read_gb_per_s"] * 1e9 / weight_bytes
        result[f"decode_ceiling_tok_per_s_{batch}"] = ceiling
        result[f"speedup_ceiling_{batch}"] = ceiling / result[f"transformers_tok_per_s_{batch}"]
    result["matmul_gflop_per_s"] = matmul_gflop_per_s()
    result["flop_per_token"] = 2 * sum(p.numel() for p in hf.model.parameters())  # tied weights once
    result["compute_ceiling_tok_per_s"] = result["matmul_gflop_per_s"] * 1e9 / result["flop_per_token"]
    for batch in (1, 8):
        result[f"compute_speedup_ceiling_{batch}"] = (
            result["compute_ceiling_tok_per_s"] / result[f"transformers_tok_per_s_{batch}"]
        )

    log(f"greedy agreement on {len(prompts)} prompts")
    reference = in_rounds(lambda chunk: run_hf(chunk, 32, exact=False), prompts)
    fast = in_rounds(lambda chunk: run_backend(chunk, 32, exact=False), prompts)
    result["greedy_agreement"], result["agreement_tokens"] = agreement(reference, fast, 32)
    result["agreement_prompts"] = len(prompts)
    if args.precision != "f32":  # the same prompts with f32 weights, for comparison
        exact = llama(precision="f32")
        f32 = in_rounds(partial(exact.generate_ids, sampling=greedy.but(max_new_tokens=32), stop="eos"), prompts)
        result["greedy_agreement_f32"], result["agreement_tokens_f32"] = agreement(reference, f32, 32)

    log("first turns with and without prefix sharing")
    for shared in (False, True):
        policy = llama(share_prefixes=shared)
        started = time.perf_counter()
        in_rounds(partial(policy.generate_ids, sampling=greedy.but(max_new_tokens=1), stop="none"), prompts)
        result[f"first_turns_s_{'shared' if shared else 'unshared'}"] = time.perf_counter() - started
        if shared:
            total = policy.prompt_tokens_copied + policy.prompt_tokens_computed
            result["prompt_share_copied"] = policy.prompt_tokens_copied / max(1, total)
    result["prefix_share_speedup"] = result["first_turns_s_unshared"] / result["first_turns_s_shared"]

    log("weight sync")
    with torch.no_grad():
        for p in hf.model.parameters():
            p.add_(torch.randn_like(p) * 0.02)
    before = run_backend(prompts[:8], 16, exact=False)
    result["weight_sync_s"] = backend.sync_weights(hf.model)
    after = run_backend(prompts[:8], 16, exact=False)
    trained = run_hf(prompts[:8], 16, exact=False)
    result["synced_outputs_differ"] = before != after
    result["synced_agreement"] = agreement(trained, after, 16)[0]

    result.update(evaluation)
    result["targets"] = {
        "speedup_1": result["speedup_1"] >= 5, "speedup_8": result["speedup_8"] >= 10,
        "greedy_agreement": result["greedy_agreement"] >= 0.95, "weight_sync_s": result["weight_sync_s"] <= 10,
        **({"bfcl_eval_100_s": result["bfcl_eval_100_s"] <= 300} if "bfcl_eval_100_s" in result else {}),
    }  # fmt: skip
    # Whether both ceilings (memory and arithmetic) leave room for each speedup target at all.
    result["targets_within_ceiling"] = {
        f"speedup_{batch}": min(result[f"speedup_ceiling_{batch}"], result[f"compute_speedup_ceiling_{batch}"]) >= goal
        for batch, goal in ((1, 5), (8, 10))
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
