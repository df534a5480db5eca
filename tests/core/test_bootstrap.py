"""Set-up (scripts/bootstrap.sh) must never look hung: pip prints nothing for minutes while it
compiles llama.cpp and fast-downward, so every step runs under scripts/with_heartbeat.sh, which
prints a line at a fixed interval to the terminal and to the log."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEARTBEAT = ROOT / "scripts" / "with_heartbeat.sh"


def run_step(log: Path, command: str, interval_s: int = 1) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COEVO_HEARTBEAT_S": str(interval_s)}
    return subprocess.run(
        ["bash", str(HEARTBEAT), str(log), "a long step", "bash", "-c", command],
        capture_output=True,
        text=True,
        env=env,
    )


def test_a_silent_step_prints_heartbeats_to_terminal_and_log(tmp_path: Path) -> None:
    log = tmp_path / "bootstrap.log"
    done = run_step(log, "echo started; sleep 4; echo finished")
    assert done.returncode == 0
    beats = [line for line in done.stdout.splitlines() if "still" in line]
    assert beats, done.stdout
    assert re.match(r"\[bootstrap \d\d:\d\d:\d\d\] still .*: a long step, 0 min 0\d s so far", beats[0])
    logged = log.read_text()
    assert "started" in logged and "finished" in logged
    assert beats[0] in logged


def test_a_compiler_below_the_step_is_named(tmp_path: Path) -> None:
    compiler = tmp_path / "cc1plus"
    compiler.symlink_to(Path("/bin/sleep").resolve())
    done = run_step(tmp_path / "log", f"{compiler} 3; true")
    assert "still compiling: a long step" in done.stdout


def test_the_step_fails_with_its_command(tmp_path: Path) -> None:
    done = run_step(tmp_path / "log", "echo oops >&2; exit 7")
    assert done.returncode == 7
    assert "oops" in done.stdout  # stderr goes to the terminal and the log too
    assert "oops" in (tmp_path / "log").read_text()


def test_every_install_in_bootstrap_runs_under_the_heartbeat() -> None:
    lines = (ROOT / "scripts" / "bootstrap.sh").read_text().splitlines()
    installs = [line for line in lines if "$PIP install" in line or "-m venv" in line]
    assert len(installs) >= 3
    assert [line for line in installs if "step " not in line] == []
