"""A launcher killed without its clean-up (SIGKILL, the OOM killer) must not leave its env
servers running: they watch their parent and shut down when it is gone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]

#: A launcher process: starts one server, prints {url, pid} and waits to be killed.
LAUNCHER = textwrap.dedent(
    """
    import json, sys, time
    from coevo.client.launcher import ServerSpec, launch_local

    spec = ServerSpec("tests.fixture_env:GuessEnv", extra_args=["--db-url", sys.argv[1]])
    with launch_local([spec], startup_timeout=120) as urls:
        print(json.dumps({"url": urls[spec.env], "pid": urls.pids[spec.env]}), flush=True)
        time.sleep(600)
    """
)


def _running(pid: int) -> bool:
    """False once `pid` has exited (a zombie not yet reaped by its new parent counts as exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def test_servers_stop_when_their_launcher_is_killed(tmp_path: Path) -> None:
    launcher = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, f"sqlite:///{tmp_path}/orphan.db"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    server_pid = 0
    try:
        assert launcher.stdout is not None
        started = json.loads(launcher.stdout.readline())
        server_pid, url = started["pid"], started["url"]
        assert httpx.get(url + "/health", timeout=10).status_code == 200
        launcher.send_signal(signal.SIGKILL)  # no `finally` runs: only the server's own watch can stop it
        launcher.wait(timeout=30)
        deadline = time.monotonic() + 60
        while _running(server_pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _running(server_pid), "the env server outlived its killed launcher"
    finally:
        if launcher.poll() is None:
            launcher.kill()
        if server_pid and _running(server_pid):
            os.kill(server_pid, signal.SIGKILL)
