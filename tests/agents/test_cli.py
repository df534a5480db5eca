"""`coevo eval` and `coevo demo` as a user runs them: a real process, real server subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parents[2]


def coevo(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "coevo.cli", *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
        env={**__import__("os").environ, "COLUMNS": "200"},
    )  # fmt: skip


def _count(db: Path, table: str) -> int:
    with create_engine(f"sqlite:///{db}").connect() as conn:
        return conn.execute(text(f"select count(*) from {table}")).scalar_one()


def test_eval_reports_stores_and_exports(tmp_path: Path) -> None:
    db, out, jsonl = tmp_path / "t.db", tmp_path / "results.json", tmp_path / "traj.jsonl"
    done = coevo(
        "eval", "--env", "tests.fixture_env:GuessEnv", "--policy", "expert", "--split", "test", "--n", "6",
        "--db-url", f"sqlite:///{db}", "--out", str(out), "--export-jsonl", str(jsonl),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "100.0%" in done.stdout and "6/6" in done.stdout  # table and progress bar
    results = json.loads(out.read_text())
    assert results["summary"]["n"] == 6 and results["summary"]["success_rate"] == 1.0
    assert results["config"]["split"] == "test" and len(results["episodes"]) == 6
    assert len({e["task_id"] for e in results["episodes"]}) == 6  # spread over the split, no repeats
    assert _count(db, "rollout_trajectories") == 6 and _count(db, "rollout_runs") == 1
    assert len(jsonl.read_text().splitlines()) == 6


def test_eval_rejects_an_unknown_split(tmp_path: Path) -> None:
    done = coevo("eval", "--env", "tests.fixture_env:GuessEnv", "--split", "nope", "--no-store", "--out", str(tmp_path / "r.json"))
    assert done.returncode != 0 and "unknown split 'nope'" in done.stdout + done.stderr


def test_demo_builds_a_leaderboard_and_leaves_trajectories(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    done = coevo(
        "demo", "--envs", "alfworld,bfcl", "--n", "2", "--policies", "expert,random",
        "--db-url", f"sqlite:///{db}", "--out-dir", str(tmp_path / "demo"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "coevo demo" in done.stdout and "expert" in done.stdout
    board = json.loads((tmp_path / "demo" / "leaderboard.json").read_text())
    assert board["envs"] == ["alfworld", "bfcl"]
    assert board["board"]["expert"]["all"]["success_rate"] == 1.0
    assert board["board"]["random"]["bfcl"]["n"] == 2
    assert _count(db, "rollout_trajectories") == 8  # 2 policies x 2 envs x 2 tasks
    assert _count(db, "episodes") >= 6  # the servers recorded their side in the same store
    assert (tmp_path / "demo" / "expert.jsonl").is_file()
