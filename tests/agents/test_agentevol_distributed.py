"""AgentEvol as two processes (torchrun, gloo on CPU): rank 0 serves, rolls out, evaluates and
writes; rank 1 reads the stage data after a barrier and joins the training. Nothing is rolled
out or recorded twice."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("trl")


def test_two_processes_run_every_stage_once(tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
         "-m", "coevo.cli", "agentevol", "--preset", "ci", "--output-dir", str(out)],
        capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    stages = [row["stage"] for row in rows if row["kind"] == "stage"]
    assert stages == ["base", "bc", "iter1", "iter2"]
    assert all((out / "checkpoints" / stage / "config.json").is_file() for stage in ("bc", "iter1", "iter2"))
    assert {p.name for p in (out / "data").iterdir()} == {"bc.jsonl", "iter1-explore.jsonl", "iter2-explore.jsonl"}
    with sqlite3.connect(out / "trajectories.db") as db:
        runs = dict(db.execute("select kind, count(*) from rollout_runs group by kind").fetchall())
    assert runs == {"bc": 1, "explore": 2, "eval": 4}  # only rank 0 rolled out
    assert done.stdout.count("AgentEvol: evaluation after each stage") == 1  # only rank 0 reports
