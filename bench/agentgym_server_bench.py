"""Shared measurements for the benches of envs that mirror an AgentGym server (textcraft,
wordle, maze): reset and step latency over AgentGym's routes, RSS with live sessions, and
AgentGym's own server started the same way as the baseline of the same run."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

from measure import bench_env, percentile, rss_mb, start_server, stop_server

#: The /reset body for a task index, beside the session id (AgentGym's servers differ).
ResetBody = Callable[[int], dict[str, Any]]


def time_routes(
    base: str, episodes: dict[int, Sequence[str]], indices: Sequence[int], reset_body: ResetBody, create: Any = None
) -> dict:
    """Reset and step latency (ms) over AgentGym's routes, replaying `episodes` (index -> actions);
    `create` is the /create body its client sends."""
    resets, steps = [], []
    with httpx.Client(base_url=base, timeout=60) as http:
        sid = http.post("/create", json=create).json()["id"]
        for index in indices:
            t = time.perf_counter()
            http.post("/reset", json={"id": sid, **reset_body(index)}).raise_for_status()
            resets.append((time.perf_counter() - t) * 1000)
            for action in episodes[index]:
                t = time.perf_counter()
                http.post("/step", json={"id": sid, "action": action}).raise_for_status()
                steps.append((time.perf_counter() - t) * 1000)
    return {
        "reset_p50_ms": round(statistics.median(resets), 3),
        "reset_p99_ms": round(percentile(resets, 0.99), 3),
        "step_p50_ms": round(statistics.median(steps), 3),
        "step_p99_ms": round(percentile(steps, 0.99), 3),
        "resets": len(resets),
        "steps": len(steps),
    }


def live_sessions(
    base: str, pid: int, sessions: int, reset_body: ResetBody, tasks: int, action: str, create: Any = None
) -> dict:
    """RSS before and after `sessions` live AgentGym sessions that each reset and took a step."""
    with httpx.Client(base_url=base, timeout=60) as http:
        first = http.post("/create", json=create).json()["id"]
        http.post("/reset", json={"id": first, **reset_body(0)})
        http.post("/step", json={"id": first, "action": action})
        idle = rss_mb(pid)
        for i in range(sessions):
            created = http.post("/create", json=create)
            if created.status_code != 200:
                raise RuntimeError(f"/create {i}: {created.status_code} {created.text[:300]}")
            sid = created.json()["id"]
            http.post("/reset", json={"id": sid, **reset_body(i % tasks)})
            http.post("/step", json={"id": sid, "action": action})
        busy = rss_mb(pid)
    return {
        "rss_idle_mb": round(idle, 1),
        f"rss_{sessions}_sessions_mb": round(busy, 1),
        "session_kb": round(max(0.0, busy - idle) * 1024 / sessions, 2),
    }


def with_original(
    cmd: Sequence[str], cwd: Path, run: Callable[[str, int], dict], prefix: str = "", env: dict[str, str] | None = None
) -> dict:
    """AgentGym's server (`cmd`, with {port} to fill, run in `cwd`) measured by `run(base, pid)`;
    `prefix` is where its routes live (its LMRL-Gym server: /wordle, /maze)."""
    port = 18000 + os.getpid() % 1000
    filled = ["env", "-C", str(cwd), *(part.replace("{port}", str(port)) for part in cmd)]
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(filled, port, {**bench_env(), **(env or {})}, Path(tmp) / "agentgym.log")
        try:
            return run(f"http://127.0.0.1:{port}{prefix}", proc.pid)
        finally:
            stop_server(proc)


def ratios(out: dict) -> None:
    """coevo's p50 latencies over AgentGym's, where both were measured."""
    if "agentgym" in out:
        for key in ("reset_p50_ms", "step_p50_ms"):
            out[f"{key.removesuffix('_ms')}_ratio_coevo_over_agentgym"] = round(
                out["coevo"][key] / out["agentgym"][key], 2
            )
