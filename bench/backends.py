"""Candidate CPU inference backends for the local policy, measured on the same prompts and the
same SmolLM2-135M-Instruct weights in one run: the comparison issue 24 asked for before picking
llama.cpp. Every candidate generates greedily, through its own public API:

- transformers: `generate` with its default dynamic KV cache, f32 (the reference and baseline).
- transformers_static_compiled: `generate` with a static KV cache and the decode step compiled by
  `torch.compile` (inductor, C++ on a CPU); prompts left-padded to one width so each batch size
  compiles once (batch 1's compile is in `setup_s`, batch 8's in an untimed warm-up).
- onnxruntime_genai_{fp32,int4}: the checkpoint exported by ONNX Runtime GenAI's model builder
  (offline, from the local checkpoint directory; `setup_s` includes the export) and decoded by its
  Generator. Needs `pip install onnxruntime-genai==0.18.0 onnx-ir` (not a coevo dependency).
- llamacpp_f16: coevo's backend (client/policies/llamacpp.py) at its default precision.

Per candidate: tok_per_s_{1,8} (decode rate after the prompt, exactly --new-tokens greedy tokens
per prompt, the prompt's cost measured apart as in bench/policy.py), prompt_tok_per_s_{1,8},
speedup_{1,8} against transformers in this run, greedy_agreement (share of --agreement-prompts
prompts whose first 32 greedy tokens equal transformers'), setup_s (building the candidate and
its first one-prompt call: an export or a compile included), and eval_workload_s: the
seconds a workload shaped like `coevo eval` on 100 BFCL simple_python tasks would take at the
candidate's batch-8 prompt and decode rates (EVAL_WORKLOAD: that evaluation's prompt and decoded
token counts, measured on the llama.cpp backend; prefix sharing, which only llama.cpp does here,
left out, so its real evaluation is faster still). A candidate that cannot run here is recorded
with the reason instead. `chosen`: the one with the shortest eval_workload_s among those whose
greedy agreement is at least 0.95.

    python bench/backends.py --json [--agreement-prompts 32] [--only transformers,llamacpp_f16]
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from measure import log  # noqa: E402
from policy import agreement, bench_conversations, cut_at_stop, in_rounds, rates, transformers_ids  # noqa: E402

from coevo.client.policies.base import Sampling  # noqa: E402

#: Generate(prompts, new_tokens, exact): exactly new_tokens greedy tokens each (exact) or up to
#: new_tokens, ending before the first end-of-turn token.
Generate = Callable[[list[list[int]], int, bool], list[list[int]]]
#: Prompt tokens and decoded tokens of `coevo eval --env bfcl --policy smollm2 --split
#: simple_python --n 100` (bench/results/policy.md, run 8): a first turn is mostly prompt.
EVAL_WORKLOAD = {"prompt_tokens": 66_633, "decoded_tokens": 11_518}
CANDIDATES = (
    "transformers", "transformers_static_compiled", "onnxruntime_genai_fp32", "onnxruntime_genai_int4", "llamacpp_f16",
)  # fmt: skip


def static_compiled(policy: Any, width: int, new_tokens: int) -> Generate:
    """transformers' generate with a static cache of width + new_tokens cells (one per batch size,
    reused) and its decode step compiled; prompts are left-padded to `width`."""
    import torch
    from transformers import CompileConfig, StaticCache

    model, pad = policy.model, policy.tokenizer.pad_token_id
    caches: dict[int, Any] = {}
    config = CompileConfig(fullgraph=True, dynamic=False)
    config._compile_all_devices = True  # type: ignore[assignment]  # else generate compiles on accelerators only

    def generate(prompts: list[list[int]], n: int, exact: bool) -> list[list[int]]:
        assert n <= new_tokens and max(map(len, prompts)) <= width
        cache = caches.get(len(prompts))
        if cache is None:
            cache = caches[len(prompts)] = StaticCache(config=model.config, max_cache_len=width + new_tokens)
        ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts])
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
        with torch.inference_mode():
            cache.reset()
            out = model.generate(
                input_ids=ids, attention_mask=mask, max_new_tokens=n, min_new_tokens=n if exact else None,
                do_sample=False, temperature=None, top_p=None, top_k=None, pad_token_id=pad,
                eos_token_id=policy._stop_ids, cache=cache, compile_config=config,
            )  # fmt: skip
        rows = [row[width:].tolist() for row in out]
        return rows if exact else cut_at_stop(rows, policy._stop_ids)

    return generate


def onnxruntime_genai(model_dir: Path, precision: str, workdir: Path, stop_ids: list[int], pad: int) -> Generate:
    """The checkpoint exported by ONNX Runtime GenAI's builder and its Generator, greedy. A batch
    is padded on the right with `pad`, a token no prompt holds (the generator masks every
    occurrence of its pad token: SmolLM2's is its end-of-turn token, which every prompt holds,
    and in 0.18 left-padded rows decode wrongly: 1 of 8 rows agreed, 8 of 8 right-padded)."""
    import numpy as np
    import onnxruntime_genai as og

    out = workdir / f"ort-{precision}"
    command = [sys.executable, "-m", "onnxruntime_genai.models.builder", "-i", str(model_dir), "-o", str(out),
               "-p", precision, "-e", "cpu", "-c", str(workdir / "ort-cache")]  # fmt: skip
    built = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if built.returncode != 0:
        raise RuntimeError(f"the model builder failed: {built.stderr[-2000:]}")
    config_file = out / "genai_config.json"
    config = json.loads(config_file.read_text())
    config["model"]["pad_token_id"] = pad
    config_file.write_text(json.dumps(config, indent=2))
    model = og.Model(str(out))

    def generate(prompts: list[list[int]], n: int, exact: bool) -> list[list[int]]:
        width = max(map(len, prompts))
        params = og.GeneratorParams(model)
        params.set_search_options(
            do_sample=False, batch_size=len(prompts), max_length=width + n, min_length=width + n if exact else 0
        )
        generator = og.Generator(model, params)
        generator.append_tokens(np.array([p + [pad] * (width - len(p)) for p in prompts], dtype=np.int32))
        rows: list[list[int]] = [[] for _ in prompts]
        while len(rows[0]) < n and not generator.is_done():
            generator.generate_next_token()
            for row, token in zip(rows, generator.get_next_tokens()):
                row.append(int(token))
        return rows if exact else cut_at_stop(rows, stop_ids)

    return generate


def measure(
    name: str, build: Callable[[], Generate], prompts: list[list[int]], new_tokens: int, rounds: int,
    reference: list[list[int]] | None,
) -> dict[str, Any]:  # fmt: skip
    """One candidate's figures (see the module docstring); with no reference yet, its greedy
    outputs under "outputs" instead of its agreement."""
    started = time.perf_counter()
    generate = build()
    generate(prompts[:1], 2, True)  # a compiling candidate compiles here
    entry: dict[str, Any] = {"setup_s": time.perf_counter() - started}
    for batch in (1, 8):
        log(f"{name}: batch {batch}")
        entry[f"tok_per_s_{batch}"], entry[f"prompt_tok_per_s_{batch}"] = rates(
            partial(_exact, generate), prompts, batch, new_tokens, rounds
        )
    entry["eval_workload_s"] = (
        EVAL_WORKLOAD["prompt_tokens"] / entry["prompt_tok_per_s_8"]
        + EVAL_WORKLOAD["decoded_tokens"] / entry["tok_per_s_8"]
    )
    log(f"{name}: greedy outputs on {len(prompts)} prompts")
    outputs = in_rounds(lambda chunk: generate(chunk, 32, False), prompts)
    if reference is None:
        entry["outputs"] = outputs
    else:
        entry["greedy_agreement"], entry["agreement_tokens"] = agreement(reference, outputs, 32)
    return entry


def _exact(generate: Generate, prompts: list[list[int]], n: int) -> list[list[int]]:
    return generate(prompts, n, True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("--agreement-prompts", type=int, default=32)
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=2, help="timed batches per (candidate, batch size)")
    parser.add_argument(
        "--only", default=",".join(CANDIDATES), help="comma-separated candidates to run (transformers always runs)"
    )
    args = parser.parse_args()
    wanted = ["transformers"] + [n for n in args.only.split(",") if n != "transformers"]  # the baseline, first
    if unknown := set(wanted) - set(CANDIDATES):
        parser.error(f"unknown candidates {sorted(unknown)}; choose from {list(CANDIDATES)}")

    import torch

    from coevo.client.policies.hf import TransformersPolicy
    from coevo.client.policies.llamacpp import LlamaCppPolicy
    from coevo.models.checkpoints import default_model_dir

    model_dir = default_model_dir()
    threads = len(os.sched_getaffinity(0))
    torch.set_num_threads(threads)
    hf = TransformersPolicy(model_dir)
    prompts = [hf.encode(hf.render(c)) for c in bench_conversations(args.agreement_prompts)]
    width = max(map(len, prompts))
    greedy = Sampling(temperature=0.0, max_new_tokens=args.new_tokens)

    def build(name: str) -> Generate:
        if name == "transformers":
            return lambda chunk, n, exact: transformers_ids(hf, chunk, n, exact)
        if name == "transformers_static_compiled":
            return static_compiled(hf, width, max(args.new_tokens, 32))
        if name.startswith("onnxruntime_genai_"):
            if importlib.util.find_spec("onnxruntime_genai") is None:
                raise ModuleNotFoundError("onnxruntime-genai is not installed (pip install onnxruntime-genai onnx-ir)")
            unused = min(set(range(hf.tokenizer.vocab_size)) - {t for p in prompts for t in p})
            return onnxruntime_genai(model_dir, name.rsplit("_", 1)[1], Path(workdir), hf._stop_ids, unused)
        policy = LlamaCppPolicy(model_dir, threads=threads, max_batch_size=8, share_prefixes=False)
        return lambda chunk, n, exact: policy.generate_ids(
            chunk, greedy.but(max_new_tokens=n), stop="none" if exact else "eos"
        )

    result: dict[str, Any] = {
        "model": model_dir.name, "threads": threads, "new_tokens": args.new_tokens, "prompts": len(prompts),
        "prompt_tokens_mean": sum(map(len, prompts)) / len(prompts), "eval_workload": EVAL_WORKLOAD, "candidates": {},
    }  # fmt: skip
    reference: list[list[int]] | None = None
    with tempfile.TemporaryDirectory() as workdir:
        for name in wanted:
            log(f"{name}: setting up")
            try:
                entry = measure(name, partial(build, name), prompts, args.new_tokens, args.rounds, reference)
            except Exception as exc:  # a candidate this machine cannot run is a result too
                result["candidates"][name] = {"error": f"{type(exc).__name__}: {exc}"}
                log(f"{name}: not measured ({exc})")
                continue
            if name == "transformers":
                reference = entry.pop("outputs")
                entry["greedy_agreement"], entry["agreement_tokens"] = 1.0, 1.0
            result["candidates"][name] = entry
            gc.collect()  # free the candidate (and its threads) before the next one is timed
    base = result["candidates"].get("transformers", {})
    for entry in result["candidates"].values():
        for batch in (1, 8):
            if f"tok_per_s_{batch}" in entry and f"tok_per_s_{batch}" in base:
                entry[f"speedup_{batch}"] = entry[f"tok_per_s_{batch}"] / base[f"tok_per_s_{batch}"]
    eligible = {n: e for n, e in result["candidates"].items() if e.get("greedy_agreement", 0) >= 0.95}
    result["chosen"] = min(eligible, key=lambda n: eligible[n]["eval_workload_s"]) if eligible else None
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for name, entry in result["candidates"].items():
            print(name, entry)
        print("chosen:", result["chosen"])


if __name__ == "__main__":
    main()
