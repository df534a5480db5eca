"""Under CI a skip fails the run unless it lacks something the repository does not own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(tmp_path: Path, reason: str, ci: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_one.py").write_text(f"import pytest\n\ndef test_x():\n    pytest.skip({reason!r})\n")
    env = {k: v for k, v in os.environ.items() if k != "COEVO_CI"} | ({"COEVO_CI": "1"} if ci else {})
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.ci_skips", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
    )  # fmt: skip


def test_a_skip_for_something_set_up_installs_fails_under_ci(tmp_path: Path) -> None:
    done = _run(tmp_path, "could not import 'mcp'", ci=True)
    assert done.returncode == 1 and "skips CI does not accept" in done.stdout
    assert "could not import 'mcp'" in done.stdout


def test_external_data_skips_and_local_runs_pass(tmp_path: Path) -> None:
    assert _run(tmp_path, "API-Bank data not found at /x", ci=True).returncode == 0
    assert _run(tmp_path, "could not import 'mcp'", ci=False).returncode == 0
