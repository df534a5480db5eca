"""TextCraft benchmark: the expert's rate, reset and step latency, memory per live session.

Plays the recipe planner on all 544 tasks in process (rate, steps, each task it cannot solve
with the reason), then serves `coevo serve textcraft` and, over AgentGym's routes (what its
clients call), times /reset and /step on the expert's episodes, opens --sessions live sessions
(one step each) and reads the server's RSS before and after. With --agentgym (a folder holding
AgentGym's agentenv-textcraft/) and --agentgym-python (an interpreter with its dependencies:
fastapi, uvicorn, gymnasium, numpy) it starts AgentGym's own server the same way and times the
same requests on it: the baseline, measured in the same run.

    python bench/textcraft.py --json [--sessions 1000] [--agentgym /tmp/AgentGym --agentgym-python /tmp/venv/bin/python]
Targets: expert_rate 1.0 (or each miss explained); rss at 1,000 live sessions < 2048 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from coevo.client.launcher import ServerSpec, launch_local
from coevo.envs.registry import make
from coevo.envs.textcraft import expert
from coevo.envs.textcraft.env import TextCraftEnv
from measure import bench_env, log, percentile, rss_mb, start_server, stop_server

TASKS = 544


def play_expert(env: TextCraftEnv) -> tuple[dict[str, Any], dict[int, list[str]]]:
    """The expert on every task in process: its rate, steps, the misses with reasons, and each
    solved episode's commands (replayed over HTTP below)."""
    solved, steps, misses = 0, [], []
    episodes: dict[int, list[str]] = {}
    for index in range(TASKS):
        env.reset(task_id=f"textcraft-{index}")
        actions: list[str] = []
        reason = None
        result = None
        while not env.done:
            action = env.expert_action()
            if action is None:
                assert env.game is not None
                try:
                    expert.plan(env.shared.planner, env.game.goal, env.game.inventory)
                    reason = "the planner has no next command"
                except expert.PlanFailed as failed:
                    reason = str(failed)
                break
            actions.append(action)
            result = env.step(action)
        if result is not None and result.reward == 1.0:
            solved += 1
            steps.append(len(actions))
            episodes[index] = actions
        else:
            misses.append({"task_id": f"textcraft-{index}", "reason": reason or f"truncated at {env.max_steps} steps"})
    row = {
        "tasks": TASKS,
        "expert_rate": round(solved / TASKS, 4),
        "expert_steps_mean": round(statistics.mean(steps), 2),
        "expert_steps_max": max(steps),
        "unsolved": misses,
    }
    return row, episodes


def time_routes(base: str, episodes: dict[int, list[str]], indices: list[int]) -> dict[str, float]:
    """Reset and step latency over AgentGym's routes on the expert's episodes (ms)."""
    resets, steps = [], []
    with httpx.Client(base_url=base, timeout=60) as http:
        created = http.post("/create", json={"commands": None, "goal": None}).json()
        sid = created["id"]
        for index in indices:
            t = time.perf_counter()
            http.post("/reset", json={"id": sid, "data_idx": index}).raise_for_status()
            resets.append((time.perf_counter() - t) * 1000)
            for action in episodes[index]:
                t = time.perf_counter()
                http.post("/step", json={"id": sid, "action": action}).raise_for_status()
                steps.append((time.perf_counter() - t) * 1000)
        http.post("/close", json={"id": sid})
    return {
        "reset_p50_ms": round(statistics.median(resets), 3),
        "reset_p99_ms": round(percentile(resets, 0.99), 3),
        "step_p50_ms": round(statistics.median(steps), 3),
        "step_p99_ms": round(percentile(steps, 0.99), 3),
        "resets": len(resets),
        "steps": len(steps),
    }


def live_sessions(base: str, pid: int, sessions: int) -> dict[str, float]:
    """RSS before and after `sessions` live AgentGym sessions that each took one step."""
    with httpx.Client(base_url=base, timeout=60) as http:
        first = http.post("/create", json={}).json()["id"]
        http.post("/step", json={"id": first, "action": "inventory"})
        idle = rss_mb(pid)
        for i in range(sessions):
            created = http.post("/create", json={})
            if created.status_code != 200:
                raise RuntimeError(f"/create {i}: {created.status_code} {created.text[:300]}")
            sid = created.json()["id"]
            http.post("/reset", json={"id": sid, "data_idx": i % TASKS})
            http.post("/step", json={"id": sid, "action": "inventory"})
        busy = rss_mb(pid)
    return {
        "rss_idle_mb": round(idle, 1),
        f"rss_{sessions}_sessions_mb": round(busy, 1),
        "session_kb": round(max(0.0, busy - idle) * 1024 / sessions, 2),
    }


def with_original(checkout: Path, python: str, run: Callable[[str, int], dict[str, Any]]) -> dict[str, Any]:
    """AgentGym's own TextCraft server under uvicorn (PYTHONHASHSEED=0, as the data was recorded)."""
    port = 18000 + os.getpid() % 1000
    env = {**bench_env(), "PYTHONHASHSEED": "0"}
    cwd = checkout / "agentenv-textcraft"
    cmd = [
        "env",
        "-C",
        str(cwd),
        python,
        "-m",
        "uvicorn",
        "agentenv_textcraft:app",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(cmd, port, env, Path(tmp) / "agentgym.log")
        try:
            return run(f"http://127.0.0.1:{port}", proc.pid)
        finally:
            stop_server(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--timed-tasks", type=int, default=60, help="tasks whose expert episodes are timed over HTTP")
    parser.add_argument("--agentgym", type=Path, help="a folder holding AgentGym's agentenv-textcraft/")
    parser.add_argument("--agentgym-python", default="python", help="an interpreter that runs AgentGym's server")
    args = parser.parse_args()

    env = make("textcraft")
    assert isinstance(env, TextCraftEnv)
    log("playing the expert on all 544 tasks")
    out, episodes = play_expert(env)
    indices = sorted(episodes)[:: max(1, len(episodes) // args.timed_tasks)][: args.timed_tasks]

    def measure(base: str, pid: int) -> dict[str, Any]:
        row = time_routes(base, episodes, indices)
        row.update(live_sessions(base, pid, args.sessions))
        return row

    log("timing coevo's server")
    with launch_local([ServerSpec("textcraft")], db_url="sqlite://") as urls:
        out["coevo"] = measure(urls["textcraft"], urls.pids["textcraft"])
    if args.agentgym:
        log("timing AgentGym's server")
        out["agentgym"] = with_original(args.agentgym.resolve(), args.agentgym_python, measure)
        for key in ("reset_p50_ms", "step_p50_ms"):
            out[f"{key.removesuffix('_ms')}_ratio_coevo_over_agentgym"] = round(
                out["coevo"][key] / out["agentgym"][key], 2
            )
    out["sessions"] = args.sessions
    out["rss_target_met"] = out["coevo"][f"rss_{args.sessions}_sessions_mb"] < 2048
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for key, value in out.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
