"""bench/training.py --trainer agentevol end to end on the tiny model: the paper's setting the bench
documents (filter, every iteration from the base model) reaches the trainer, `--set` overrides it,
and the report carries the curve and every iteration against BC."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def bench(out: Path, *extra: str) -> dict[str, Any]:
    command = [
        sys.executable, "bench/training.py", "--json", "--trainer", "agentevol", "--model", "tiny",
        "--splits", "simple_python", "--n", "3", "--bc-tasks", "2", "--explore-tasks", "2", "--iterations", "2",
        "--output-dir", str(out), "--set", "epochs=1", *extra,
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_bench_runs_the_documented_setting_and_takes_overrides(tmp_path: Path) -> None:
    report = bench(tmp_path / "default")
    config = json.loads((tmp_path / "default" / "config.json").read_text())
    assert report["objective"] == config["objective"] == "filter"
    assert config["restart_from_base"] and config["accumulate_explored"] and config["epochs"] == 1.0
    assert [c["stage"] for c in report["curve"]] == ["base", "bc", "iter1", "iter2"]
    assert [r["stage"] for r in report["iterations_vs_bc"]] == ["iter1", "iter2"]
    assert report["n"] == 3 and "gain_vs_bc_ci95_low" in report

    weighted = bench(tmp_path / "weighted", "--set", "objective=reward_weighted")
    assert weighted["objective"] == "reward_weighted" and weighted["overrides"][-1] == "objective=reward_weighted"
