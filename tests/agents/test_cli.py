"""`coevo eval` and `coevo demo` as a user runs them: a real process, real server subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parents[2]


#: A hang guard for the demo's runs (servers, a warm-up, an RL epoch and three held-out passes on a
#: tiny model): a minute or two alone, several times that on a loaded machine.
DEMO_TIMEOUT_S = 900


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
    done = coevo(
        "eval",
        "--env",
        "tests.fixture_env:GuessEnv",
        "--split",
        "nope",
        "--no-store",
        "--out",
        str(tmp_path / "r.json"),
    )
    assert done.returncode != 0 and "unknown split 'nope'" in done.stdout + done.stderr


def test_demo_builds_a_leaderboard_and_leaves_trajectories(tmp_path: Path) -> None:
    db = tmp_path / "demo.db"
    done = coevo(
        "demo", "--envs", "alfworld,bfcl", "--n", "2", "--policies", "expert,random",
        "--db-url", f"sqlite:///{db}", "--out-dir", str(tmp_path / "demo"),
        "--train-model", "tiny", "--train-steps", "2", "--train-n", "3", timeout=DEMO_TIMEOUT_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "coevo demo" in done.stdout and "expert" in done.stdout
    board = json.loads((tmp_path / "demo" / "leaderboard.json").read_text())
    # The training step: the same held-out BFCL tasks scored before training, after the supervised
    # start and after one RL epoch of GenEnv from there.
    training = board["training"]
    assert training["model"] == "tiny" and training["steps"] == 2 and training["rl_epochs"] == 1
    assert [r["split"] for r in training["rows"]] == ["bfcl:simple_python", "bfcl:multiple", "all"]
    assert [r["n"] for r in training["rows"]] == [3, 3, 6]
    for row in training["rows"]:
        for rate, low, high in (row["base"], row["start"], row["trained"]):
            assert 0 <= low <= rate <= high <= 1
    for key in ("gain", "gain_sft", "gain_rl"):
        assert training[key]["ci95_low"] <= training[key]["difference"] <= training[key]["ci95_high"]
    pooled = training["rows"][-1]
    assert training["gain_rl"]["difference"] == pytest.approx(pooled["trained"][0] - pooled["start"][0])
    assert "training step" in done.stdout and "held-out BFCL" in done.stdout
    assert "supervised start" in done.stdout and "after RL" in done.stdout
    log = (tmp_path / "demo" / "demo.log").read_text().splitlines()
    assert "start: coevo demo, 8 episodes" in log[0] and "end: coevo demo, " in log[-1]
    assert sum("episodes," in line for line in log) == 8  # one progress line per episode
    assert any("trained in" in line for line in log)
    folder = tmp_path / "demo" / "training-tiny-2-steps-1-rl"
    assert json.loads((folder / "agent_warmup" / "warmup.json").read_text())["steps"] == 2
    assert json.loads((folder / "genenv" / "state.json").read_text())["epochs_done"] == 1
    assert any("RL epoch 1/1 done" in line for line in log)
    assert board["envs"] == ["alfworld", "bfcl"]
    assert board["board"]["expert"]["all"]["success_rate"] == 1.0
    assert board["board"]["random"]["bfcl"]["n"] == 2
    assert _count(db, "rollout_trajectories") == 8  # 2 policies x 2 envs x 2 tasks
    assert _count(db, "episodes") >= 6  # the servers recorded their side in the same store
    assert (tmp_path / "demo" / "expert.jsonl").is_file()

    # A second demo in the same folder reuses the trained model, and says so; --fresh trains again.
    again = (
        "demo", "--envs", "bfcl", "--n", "1", "--policies", "expert", "--db-url", f"sqlite:///{db}",
        "--out-dir", str(tmp_path / "demo"), "--train-model", "tiny", "--train-steps", "2", "--train-n", "3",
    )  # fmt: skip
    second = coevo(*again, timeout=DEMO_TIMEOUT_S)
    assert second.returncode == 0, second.stderr
    assert "reusing the model trained by an earlier demo" in second.stdout and "--fresh" in second.stdout
    assert "training-tiny-2-steps" in second.stdout
    assert json.loads((tmp_path / "demo" / "leaderboard.json").read_text())["training"]["reused"] is True
    last_run = (tmp_path / "demo" / "demo.log").read_text().rsplit("start: coevo demo", 1)[1]
    assert "reused the models trained earlier" in last_run and "trained in" not in last_run
    fresh = coevo(*again, "--fresh", timeout=DEMO_TIMEOUT_S)
    assert fresh.returncode == 0, fresh.stderr
    assert "--fresh: removed" in fresh.stdout and "reusing" not in fresh.stdout
    assert json.loads((tmp_path / "demo" / "leaderboard.json").read_text())["training"]["reused"] is False
    assert any("trained in" in line for line in (tmp_path / "demo" / "demo.log").read_text().splitlines())


def test_eval_writes_progress_to_a_log_file(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    done = coevo(
        "eval", "--env", "tests.fixture_env:GuessEnv", "--policy", "expert", "--split", "test", "--n", "4",
        "--no-store", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = out.with_suffix(".log").read_text().splitlines()
    assert "start:" in lines[0] and "4 episodes" in lines[0]
    assert [line.split(": ", 1)[1].split(",")[0] for line in lines[1:5]] == [f"{k}/4 episodes" for k in range(1, 5)]
    assert "end:" in lines[-1] and "4/4 successful" in lines[-1]


def test_eval_stops_promptly_on_sigterm(tmp_path: Path, tiny_model_dir: Path) -> None:
    """A generation that would run for minutes is abandoned at the next token: the process
    exits with 143 soon after SIGTERM, and the env server it started is gone too."""
    import os
    import signal
    import time

    log = tmp_path / "eval.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "coevo.cli", "eval", "--env", "tests.fixture_env:GuessEnv", "--policy", str(tiny_model_dir),
         "--backend", "transformers", "--split", "test", "--n", "2", "--max-new-tokens", "200000", "--temperature", "1",
         "--max-prompt-tokens", "256", "--no-store", "--out", str(tmp_path / "r.json"), "--log-file", str(log)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not (log.is_file() and "start:" in log.read_text()) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2)  # the first round's generation is under way
        assert process.poll() is None, process.stdout.read() if process.stdout else ""
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 128 + signal.SIGTERM
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    children = subprocess.run(["pgrep", "-s", str(process.pid)], capture_output=True, text=True).stdout.split()
    assert children == []  # the started env server was stopped, not orphaned
