"""`coevo serve` processes for the tests that run several servers on one store (one owner per
session across replicas, one env past one core): each started from the repo root as one would
start one per core, and handed back once it answers /health."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.server.test_recovery import ROOT, _coevo_command


def until(probe: Callable[[], Any], ok: Callable[[Any], bool], limit_s: float = 30.0) -> list[Any]:
    """Call `probe` until `ok` holds for its answer (every answer, in order)."""
    seen = [probe()]
    deadline = time.monotonic() + limit_s
    while not ok(seen[-1]):
        assert time.monotonic() < deadline, seen[-5:]
        time.sleep(0.1)
        seen.append(probe())
    return seen


def healthy(port: int) -> bool:
    """Whether a server on the loopback `port` answers /health with 200."""
    try:
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def serve_process(db_url: str, port: int, log: Path, **env: str) -> subprocess.Popen[bytes]:
    """`coevo serve tests.fixture_env:GuessEnv` on `port` over `db_url` in its own process (output
    appended to `log`), with none of this process's COEVO_ settings but `env`'s."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("COEVO_")}
    environ.update(env)
    with log.open("ab") as sink:
        proc = subprocess.Popen(
            [*_coevo_command(), "serve", "tests.fixture_env:GuessEnv", "--port", str(port), "--db-url", db_url],
            cwd=ROOT,
            env=environ,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    until(lambda: healthy(port), bool, 60)
    return proc
