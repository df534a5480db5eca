"""GenEnv as two processes (torchrun, gloo on CPU) with the LLM environment policy: the main
process generates, records and scores held-out splits; both train the agent (GRPO) and both run
every pi_env update (its warm-up too). Three tasks an epoch on two processes: GRPO's generation
batch holds two tasks (one per process), so the third is only trained on if the batch is padded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl")

from coevo.genenv.agent import pad_rows, tasks_per_generation  # noqa: E402

LLM_SIMULATOR = [
    "env_backend=llm", "env_model=tiny", "base_sources=arithmetic", "env_warmup_steps=80", "env_warmup_lr=1e-2",
    "llm_examples=1", "llm_max_new_tokens=40", "env_rwr_average=soft_band", "env_update_steps=2",
]  # fmt: skip


def test_generation_batches_are_padded_for_every_process() -> None:
    from types import SimpleNamespace

    rows = [{"task_id": t} for t in "abc"]
    # two processes, one task each per step: a generation batch of 2 tasks x group 2 = 4 completions
    per_batch = tasks_per_generation(SimpleNamespace(generation_batch_size=4), group_size=2)
    assert per_batch == 2
    assert [r["task_id"] for r in pad_rows(rows, per_batch)] == ["a", "b", "c", "a"]
    assert pad_rows(rows, 3) == rows and [r["task_id"] for r in pad_rows(rows, 5)] == list("abcab")


def test_two_processes_run_every_epoch_once_and_both_update_pi_env(tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    settings = [arg for item in LLM_SIMULATOR for arg in ("--set", item)]
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
         "-m", "coevo.cli", "genenv", "--preset", "ci", "--arms", "genenv", "--output-dir", str(out), *settings],
        capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path,
    )  # fmt: skip
    log = done.stdout + done.stderr
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    epochs = [r for r in rows if r.get("kind", "epoch") == "epoch"]
    assert [r["epoch"] for r in epochs] == [0, 1]  # written once, by the main process
    heldout = [(r["epoch"], r["split"]) for r in rows if r.get("kind") == "heldout"]
    assert heldout == [(e, s) for e in (-1, 0, 1) for s in ("simple_python", "multiple")]
    for row in epochs:
        # every one of the 3 tasks trained on and scored: 4 groups of 2 (one task twice), not 2 of 2
        assert row["tasks"] == row["grpo_tasks"] == 3 and row["rollouts"] == 8
        assert row["env_update"]["processes"] == 2 and row["env_update"]["steps"] >= 1
        assert (out / "genenv" / "env_policy" / f"epoch-{row['epoch']:03d}" / "config.json").is_file()
    # the warm-up and each epoch's update ran on both processes
    for rank in (0, 1):
        assert log.count(f"pi_env update on process {rank} of 2") == 3, log[-3000:]
