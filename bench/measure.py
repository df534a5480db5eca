"""Measurement helpers shared by the benchmarks (imported as `measure` when a bench runs as a script)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

HOST = "127.0.0.1"  # benchmarks never load anything else
ROOT = Path(__file__).resolve().parents[1]


def rss_mb(pid: int) -> float:
    """Resident memory of a process, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants (a server and, e.g., the JVM that
    SciWorld's simulator runs in), from /proc (Linux)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            total += rss_mb(current)
        except (OSError, RuntimeError):
            continue
        todo.extend(children.get(current, []))
    return total


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sched_seconds(pid: int, thread: int | None = None) -> tuple[float, float]:
    """(seconds on a CPU, seconds runnable but waiting for one) of a thread so far (default the
    process's main thread), from /proc/PID/task/TID/schedstat (Linux). The wait shows how much
    of a run's wall clock went to other processes on a shared machine."""
    fields = Path(f"/proc/{pid}/task/{thread or pid}/schedstat").read_text().split()
    return int(fields[0]) / 1e9, int(fields[1]) / 1e9


def percentile(values: list[float], q: float) -> float:
    """The q-quantile by rank (nan for no values)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def log(message: str) -> None:
    """Progress goes to stderr, so stdout stays one JSON object under --json."""
    print(message, file=sys.stderr, flush=True)


def coevo_command() -> list[str]:
    """How to run the coevo CLI of this interpreter's environment."""
    script = Path(sys.executable).parent / "coevo"
    return [str(script)] if script.exists() else [sys.executable, "-m", "coevo.cli"]


def bench_env() -> dict[str, str]:
    """The environment for a server under test: no COEVO_* settings leak in, the repo importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COEVO_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def start_server(cmd: list[str], port: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """Start `cmd` with its output in `log` and wait until `port` accepts connections."""
    with log.open("ab") as sink:  # a file, not a pipe nobody reads: a chatty server never blocks
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{cmd[:3]} exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection((HOST, port), timeout=0.2):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise TimeoutError(f"{cmd[:3]} did not start")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
