"""Shared benchmark of AgentGym's tool envs (weather, todo, sheet, movie, academia).

- expert_rate: the share of a split's tasks the expert wins (reward 1.0, success) in process,
  with each exception listed (task id, kind, why: no plan, or the reward it reached).
- step latency over HTTP (a `coevo serve <env>` subprocess, one client, expert episodes):
  p50 / p95 in milliseconds, and in process for comparison.
- session_kb: memory per live session (tracemalloc over --sessions sessions, each after its
  expert's first steps), against the shared data alone.

    python bench/<env>.py --json [--data-dir DIR] [--episodes 60] [--sessions 500]
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc
from collections import Counter
from typing import Any

from coevo.client import EnvClient
from coevo.client.launcher import ServerSpec, launch_local
from coevo.envs.registry import make
from measure import log, percentile


def _quantile(values: list[float], q: float, digits: int) -> float | None:
    """A latency quantile, None where nothing was measured (JSON has no NaN)."""
    return round(percentile(values, q), digits) if values else None


def _why(kind: str | None, plan: tuple[str, ...], note: str | None, reward: float) -> str:
    """An exception's reason: the loader's note for a task it gave no plan (what the tools answer
    instead), a question of no kind the loader knows, a recognised one whose recorded answer the
    sandbox cannot hold (the expert reaches another), or a lost episode."""
    if plan:
        return f"reward {reward}"
    if note:
        return f"no plan: {note}"
    if kind is None:
        return "no plan: the loader does not recognise the question"
    return "no plan: recognised, but the sandbox cannot hold the recorded answer"


def expert_rate(env_name: str, options: dict[str, Any], split: str) -> dict[str, Any]:
    env = make(env_name, **options)
    ids = list(env.task_ids(split))
    exceptions = []
    latencies = []
    for task_id in ids:
        env.reset(task_id=task_id)
        reward, success = 0.0, False
        while (action := env.expert_action()) is not None:
            t = time.perf_counter()
            result = env.step(action)
            latencies.append((time.perf_counter() - t) * 1000)
            # a win: AgentBoard's success, and the recorded final state where the env checks one (todo)
            reward = result.reward
            success = bool(result.info.get("success")) and result.info.get("state_matches", True) is not False
        if not success:
            task = env.taskset.by_id[task_id][1]  # type: ignore[attr-defined]
            why = _why(task.kind, task.plan, task.note, reward)
            exceptions.append({"task_id": task_id, "kind": task.kind, "why": why})
    return {
        "split": split,
        "tasks": len(ids),
        "expert_rate": round(1 - len(exceptions) / max(1, len(ids)), 4),
        "exception_reasons": dict(Counter(e["why"] for e in exceptions).most_common()),
        "exceptions": exceptions,
        "inprocess_step_ms_p50": _quantile(latencies, 0.5, 3),
        "inprocess_step_ms_p95": _quantile(latencies, 0.95, 3),
    }


def http_latency(env_name: str, options: dict[str, Any], episodes: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    with launch_local([ServerSpec(env_name, options)], db_url="sqlite://") as urls, EnvClient(urls[env_name]) as client:
        start_s = time.perf_counter() - t0
        ids = list(make(env_name, **options).task_ids("test"))[:episodes]
        latencies: list[float] = []
        wins = 0
        for task_id in ids:
            with client.create(task_id=task_id) as session:
                reward = 0.0
                while (action := session.expert_action()) is not None:
                    t = time.perf_counter()
                    result = session.step(action)
                    latencies.append((time.perf_counter() - t) * 1000)
                    reward = result.reward
                wins += reward == 1.0
    return {
        "http_start_s": round(start_s, 2),
        "http_episodes": len(ids),
        "http_expert_rate": round(wins / max(1, len(ids)), 4),
        "http_step_ms_p50": _quantile(latencies, 0.5, 2),
        "http_step_ms_p95": _quantile(latencies, 0.95, 2),
    }


def session_memory(env_name: str, options: dict[str, Any], sessions: int) -> dict[str, Any]:
    first = make(env_name, **options)  # builds the shared data outside the measurement
    ids = list(first.task_ids("test"))
    tracemalloc.start()
    base = tracemalloc.take_snapshot()
    live = []
    for i in range(sessions):
        env = make(env_name, **options)
        env.reset(task_id=ids[i % len(ids)])
        for _ in range(3):
            action = env.expert_action()
            if action is None:
                break
            env.step(action)
        live.append(env)
    used = sum(stat.size_diff for stat in tracemalloc.take_snapshot().compare_to(base, "filename"))
    tracemalloc.stop()
    return {"sessions": sessions, "session_kb": round(used / sessions / 1024, 2)}


def main(env_name: str) -> None:
    parser = argparse.ArgumentParser(description=f"{env_name} benchmark (bench/tool_envs.py)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--data-dir", default=None, help="AgentBoard's data folder: also rate its tasks")
    parser.add_argument("--episodes", type=int, default=60)
    parser.add_argument("--sessions", type=int, default=500)
    args = parser.parse_args()
    report: dict[str, Any] = {"env": env_name}
    log("expert on the generated test split")
    report["generated"] = expert_rate(env_name, {}, "test")
    if args.data_dir:
        log(f"expert on the tasks of {args.data_dir}")
        report["file"] = expert_rate(env_name, {"data_dir": args.data_dir}, "test")
    log("HTTP latency")
    report.update(http_latency(env_name, {}, args.episodes))
    log("session memory")
    report.update(session_memory(env_name, {}, args.sessions))
    print(json.dumps(report, indent=1 if args.json else None))
