"""Shared measurements for the benches of envs that mirror an AgentGym server (textcraft,
wordle, maze): the expert's episodes played in process, reset and step latency over AgentGym's
routes, RSS with live sessions, and AgentGym's own server started the same way as the baseline
of the same run."""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from coevo.client.launcher import ServerSpec, launch_local
from coevo.envs.base import Env, StepResult
from measure import bench_env, log, percentile, rss_mb, start_server, stop_server

#: The /reset body for a task index, beside the session id (AgentGym's servers differ).
ResetBody = Callable[[int], dict[str, Any]]
#: A measurement of one server: `run(base URL, server pid)` -> its row.
Measure = Callable[[str, int], dict]
#: 503s retried: a coevo server on a starved host can answer 503 (`ownership_unconfirmed` while
#: its store heartbeat is late, `store_unavailable`); the retries are counted, only the answered
#: attempt is timed.
RETRIES = 10


def expert_episode(env: Env, task_id: str) -> tuple[list[str], StepResult | None]:
    """`env`'s expert played on `task_id` until the episode ends or the expert has no next action:
    (the actions it took, the last step's result; None when it took none)."""
    env.reset(task_id=task_id)
    actions: list[str] = []
    result = None
    while not env.done:
        action = env.expert_action()
        if action is None:
            break
        actions.append(action)
        result = env.step(action)
    return actions, result


def _post(http: httpx.Client, path: str, body: Any, retried: list[int]) -> tuple[httpx.Response, float]:
    """POST with 503s retried; (response, milliseconds of the attempt that was answered)."""
    for _ in range(RETRIES):
        t = time.perf_counter()
        res = http.post(path, json=body)
        elapsed = (time.perf_counter() - t) * 1000
        if res.status_code != 503:
            res.raise_for_status()
            return res, elapsed
        retried[0] += 1
        time.sleep(0.5)
    res.raise_for_status()
    raise AssertionError("unreachable")


def time_routes(
    base: str, episodes: Mapping[int, Sequence[str]], indices: Sequence[int], reset_body: ResetBody, create: Any = None
) -> dict:
    """Reset and step latency (ms) over AgentGym's routes, replaying `episodes` (index -> actions);
    `create` is the /create body its client sends."""
    resets, steps = [], []
    retried = [0]
    with httpx.Client(base_url=base, timeout=60) as http:
        sid = _post(http, "/create", create, retried)[0].json()["id"]
        for index in indices:
            resets.append(_post(http, "/reset", {"id": sid, **reset_body(index)}, retried)[1])
            for action in episodes[index]:
                steps.append(_post(http, "/step", {"id": sid, "action": action}, retried)[1])
    return {
        "retried_503": retried[0],
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
    retried = [0]
    with httpx.Client(base_url=base, timeout=60) as http:
        first = _post(http, "/create", create, retried)[0].json()["id"]
        _post(http, "/reset", {"id": first, **reset_body(0)}, retried)
        _post(http, "/step", {"id": first, "action": action}, retried)
        idle = rss_mb(pid)
        for i in range(sessions):
            sid = _post(http, "/create", create, retried)[0].json()["id"]
            _post(http, "/reset", {"id": sid, **reset_body(i % tasks)}, retried)
            _post(http, "/step", {"id": sid, "action": action}, retried)
        busy = rss_mb(pid)
    return {
        "rss_idle_mb": round(idle, 1),
        f"rss_{sessions}_sessions_mb": round(busy, 1),
        "session_kb": round(max(0.0, busy - idle) * 1024 / sessions, 2),
        "sessions_retried_503": retried[0],
    }


def with_original(
    cmd: Sequence[str], cwd: Path, run: Measure, prefix: str = "", env: dict[str, str] | None = None
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


def with_lmrlgym(agentgym: Path, python: str, pythonpath: str, run: Measure, game: str) -> dict:
    """AgentGym's LMRL-Gym server (`agentgym`/agentenv-lmrlgym with LMRL-Gym's code in its
    lmrlgym/, under uvicorn with `python`; `pythonpath`: extra import paths) measured by
    `run(base, pid)` on its /`game` routes."""
    root = agentgym.resolve() / "agentenv-lmrlgym"
    path = ":".join(p for p in (str(root / "lmrlgym"), pythonpath) if p)
    cmd = [python, "-m", "uvicorn", "agentenv_lmrlgym:app", "--port", "{port}", "--log-level", "warning"]
    return with_original(cmd, root, run, prefix=f"/{game}", env={"PYTHONPATH": path})


def add_lmrlgym_options(parser: argparse.ArgumentParser) -> None:
    """The options that say where AgentGym's LMRL-Gym server is and how to start it (see `with_lmrlgym`)."""
    parser.add_argument("--agentgym", type=Path, help="a folder holding agentenv-lmrlgym/ with lmrlgym/ filled in")
    parser.add_argument("--agentgym-python", default="python", help="an interpreter that runs its server")
    parser.add_argument("--agentgym-pythonpath", default="", help="extra import paths for it (stubs, scikit-image)")


def lmrlgym_original(args: argparse.Namespace, game: str) -> Callable[[Measure], dict] | None:
    """A measurement run on AgentGym's LMRL-Gym server's /`game` routes as `add_lmrlgym_options`
    set it up; None without --agentgym."""
    if not args.agentgym:
        return None
    return partial(with_lmrlgym, args.agentgym, args.agentgym_python, args.agentgym_pythonpath, game=game)


def ratios(out: dict) -> None:
    """coevo's p50 latencies over AgentGym's, where both were measured."""
    if "agentgym" in out:
        for key in ("reset_p50_ms", "step_p50_ms"):
            out[f"{key.removesuffix('_ms')}_ratio_coevo_over_agentgym"] = round(
                out["coevo"][key] / out["agentgym"][key], 2
            )


def route_measure(
    episodes: Mapping[int, Sequence[str]],
    indices: Sequence[int],
    reset_body: ResetBody,
    sessions: int,
    tasks: int,
    action: str,
    create: Any = None,
) -> Measure:
    """One server's measurement: `time_routes` over `episodes` at `indices`, then `live_sessions`
    (`sessions` of them over `tasks` task indices, each taking `action`)."""

    def measure(base: str, pid: int) -> dict[str, Any]:
        row = time_routes(base, episodes, indices, reset_body, create)
        row.update(live_sessions(base, pid, sessions, reset_body, tasks, action, create))
        return row

    return measure


def measure_servers(
    out: dict, env: str, measure: Measure, sessions: int, original: Callable[[Measure], dict] | None = None
) -> None:
    """`measure` on `coevo serve env` into out["coevo"] and, given `original` (which starts
    AgentGym's server and measures it), on AgentGym's into out["agentgym"] with the ratios; then
    the session count and whether RSS at that many sessions stayed under 2,048 MB."""
    log("timing coevo's server")
    with launch_local([ServerSpec(env)], db_url="sqlite://") as urls:
        out["coevo"] = measure(urls[env], urls.pids[env])
    if original is not None:
        log("timing AgentGym's server")
        out["agentgym"] = original(measure)
        ratios(out)
    out["sessions"] = sessions
    out["rss_target_met"] = out["coevo"][f"rss_{sessions}_sessions_mb"] < 2048
