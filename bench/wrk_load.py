"""Load from wrk (Debian's `wrk` package): a C load generator, so the client costs far less CPU
than the server it measures, unlike a Python client on the same small machine.

Imported as `wrk_load` by the benchmarks; running this file does nothing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from measure import HOST

#: POST /sessions/<id>/step round-robin over session ids (and a reset every `WRK_EPISODE` visits).
STEP_SCRIPT = Path(__file__).resolve().parent / "data" / "wrk_step.lua"
_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


@dataclass
class WrkRun:
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    socket_errors: int

    @property
    def per_s(self) -> float:
        return self.requests / self.seconds


def wrk_path() -> str | None:
    return shutil.which("wrk")


def pinned(cmd: list[str], core: int | None) -> list[str]:
    """`cmd` pinned to one core with taskset (as is when there is no such core or no taskset)."""
    if core is None or core >= (os.cpu_count() or 1) or shutil.which("taskset") is None:
        return cmd
    return ["taskset", "-c", str(core), *cmd]


def _ms(value: str) -> float:
    number, unit = re.fullmatch(r"([0-9.]+)(us|ms|s)", value).groups()  # type: ignore[union-attr]
    return float(number) * _UNITS[unit]


def parse(output: str) -> WrkRun:
    """The figures of one `wrk --latency` report."""
    done = re.search(r"(\d+) requests in ([0-9.]+)(us|ms|s)", output)
    if done is None:
        raise RuntimeError(f"wrk printed no summary:\n{output[-2000:]}")
    latency = dict(re.findall(r"^\s*(50|99)(?:\.0+)?%\s+(\S+)\s*$", output, re.M))
    if set(latency) != {"50", "99"}:
        raise RuntimeError(f"wrk printed no latency distribution:\n{output[-2000:]}")
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    return WrkRun(
        requests=int(done.group(1)),
        seconds=_ms(done.group(2) + done.group(3)) / 1e3,
        p50_ms=_ms(latency["50"]),
        p99_ms=_ms(latency["99"]),
        non_2xx=int(non_2xx.group(1)) if non_2xx else 0,
        socket_errors=sum(int(x) for x in errors.groups()) if errors else 0,
    )


def run_steps(
    port: int,
    sessions_file: Path,
    *,
    seconds: float,
    connections: int,
    core: int | None,
    action: str = "look",
    episode: int = 40,
    offset: int = 0,
) -> WrkRun:
    """wrk stepping the sessions listed in `sessions_file` for `seconds` (one thread);
    `offset`: the requests earlier runs sent to these sessions (bench/data/wrk_step.lua)."""
    binary = wrk_path()
    if binary is None:
        raise RuntimeError("wrk is not installed (Debian: apt-get install wrk)")
    cmd = [
        binary,
        "-t1",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        "--latency",
        "-s",
        str(STEP_SCRIPT),
        f"http://{HOST}:{port}",
    ]
    env = {
        **os.environ,
        "WRK_SESSIONS": str(sessions_file),
        "WRK_ACTION": action,
        "WRK_EPISODE": str(episode),
        "WRK_OFFSET": str(offset),
    }
    proc = subprocess.run(pinned(cmd, core), env=env, capture_output=True, text=True, timeout=seconds + 60)
    if proc.returncode != 0:
        raise RuntimeError(f"wrk failed ({proc.returncode}): {proc.stderr[-2000:]}")
    run = parse(proc.stdout)
    if run.non_2xx:  # an error answer is a broken run; a socket timeout is a loaded machine (reported)
        raise RuntimeError(f"wrk saw {run.non_2xx} error answers: {proc.stderr[-500:]}")
    return run
