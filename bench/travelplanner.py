"""TravelPlanner benchmark: the expert's final pass rate over HTTP, tool calls and plan evaluations
per second, sandbox build/open time, query generation, and memory per live session.

- expert_final_pass_rate: `coevo serve travelplanner` in a subprocess; concurrent clients play
  the expert (two-stage: searches, notebook, Planner[...]) on every generated validation
  query; also per level and day count, and for sole-planning on --sole queries.
- tool_calls_per_s: in process, env.step on the search actions of the validation experts'
  scripts, with every cache cold (as in a fresh process) and then answered from the tool cache; over HTTP,
  concurrent clients replaying those searches (`http_tool_calls_per_s`), against the trivial
  guess env replayed the same way on the same server path (`http_tool_calls_vs_trivial`).
- plans_evaluated_per_s: full official evaluation (8 commonsense checks, 5 hard constraints) of
  the validation expert plans and of one broken copy of each, in process, sandbox lookups warm.
- session_kb: server RSS growth per live session that holds a notebook of 10 entries.

    python bench/travelplanner.py --json [--queries 180] [--sole 45] [--clients 8] [--sessions 1000]
Targets: expert_final_pass_rate >= 0.95 (generated queries are kept only when the expert's
plan passes, so 1.0 is expected); session_kb < 64.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from coevo.client import EnvClient
from coevo.client.launcher import ServerSpec, launch_local
from measure import log, rss_mb


def bench_sandbox() -> dict[str, float]:
    """Cold build of the generated sandbox into an empty cache, then a warm open, each in a fresh process."""
    code = (
        "import time; t=time.perf_counter();"
        "from coevo.envs.travelplanner.database import open_sandbox; open_sandbox(seed=0);"
        "print(time.perf_counter()-t)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "COEVO_CACHE_DIR": cache}
        build = float(
            subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout
        )
        warm = float(
            subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout
        )
    return {"sandbox_build_s": round(build, 2), "sandbox_open_s": round(warm, 2)}


def _expert_over_http(client: EnvClient, task_id: str) -> tuple[float, int]:
    with client.create(task_id=task_id) as session:
        steps = 0
        while True:
            action = session.expert_action()
            if action is None:
                return 0.0, steps
            result = session.step(action)
            steps += 1
            if result.done or result.truncated:
                return result.reward, steps


def _replay(client: EnvClient, task_id: str, actions: list[str]) -> int:
    with client.create(task_id=task_id) as session:
        for action in actions:
            session.step(action)
    return len(actions)


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--queries", type=int, default=180, help="validation queries the expert plays over HTTP")
    parser.add_argument("--sole", type=int, default=45, help="validation queries in sole-planning mode")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--skip-build", action="store_true", help="do not time a cold sandbox build")
    return parser.parse_args()


def _server(env: str, options: dict[str, Any] | None = None) -> ServerSpec:
    return ServerSpec(env, options or {}, extra_args=["--no-record", "--idle-ttl", "0"])


def bench_tool_calls(calls: list[tuple[str, str]]) -> dict[str, float]:
    """The expert's search calls in process on an env with its own caches: cold, then cached."""
    from coevo.envs.registry import make

    fresh = make("travelplanner", split_sizes="validation=180")  # its own caches, all cold
    for lookup in (
        fresh.shared.db.flights,
        fresh.shared.db.accommodations,
        fresh.shared.db.restaurants,
        fresh.shared.db.attractions,
        fresh.shared.db.drive,
    ):
        lookup.cache_clear()  # type: ignore[attr-defined]
    fresh.shared._tool_cache.clear()
    fresh.reset(task_id="validation-0")

    def rate() -> float:
        started = time.perf_counter()
        for _, action in calls:
            fresh.step(action)
            if fresh.done:
                fresh.reset(task_id="validation-0")
        return len(calls) / (time.perf_counter() - started)

    cold = rate()
    return {"tool_calls_per_s": round(cold, 1), "tool_calls_per_s_cached": round(rate(), 1)}


def bench_plan_evaluation(env: Any, tasks: list[Any]) -> dict[str, float]:
    """Official evaluation of each expert plan and of a copy that repeats a restaurant (warm lookups)."""
    from coevo.envs.travelplanner.scoring import evaluate_plan

    plans = []
    for task in tasks:
        plan = task.itinerary.plan()
        broken = copy.deepcopy(plan)
        broken[1]["lunch"] = broken[1]["breakfast"]
        plans += [(task.query, plan), (task.query, broken)]
    verdicts = [evaluate_plan(q, p, env.shared.db).final_pass for q, p in plans]  # warm the lookups
    started = time.perf_counter()
    verdicts = [evaluate_plan(q, p, env.shared.db).final_pass for q, p in plans]
    rate = round(len(plans) / (time.perf_counter() - started), 1)
    assert verdicts[0::2] == [True] * len(tasks) and not any(verdicts[1::2])
    return {"plans_evaluated_per_s": rate}


def bench_expert_http(client: EnvClient, tasks: list[Any], task_ids: list[str], clients: int) -> dict[str, Any]:
    """The expert on every query over HTTP: pass rate (overall and per level x days), speed."""
    log(f"[travelplanner] expert on {len(task_ids)} queries over HTTP")
    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        outcomes = list(pool.map(lambda t: _expert_over_http(client, t), task_ids))
    elapsed = time.perf_counter() - started
    rewards = [r for r, _ in outcomes]
    cells: dict[str, list[float]] = defaultdict(list)
    for task, reward in zip(tasks, rewards):
        cells[f"{task.query.level}-{task.query.days}"].append(reward)
    return {
        "expert_final_pass_rate": sum(r == 1.0 for r in rewards) / len(rewards),
        "expert_queries": len(rewards),
        "expert_steps_per_episode": round(sum(s for _, s in outcomes) / len(outcomes), 1),
        "expert_episodes_per_s_http": round(len(rewards) / elapsed, 2),
        "expert_final_pass_rate_by_cell": {k: sum(v) / len(v) for k, v in sorted(cells.items())},
    }


def bench_http_tool_calls(
    client: EnvClient, searches: dict[str, list[str]], task_ids: list[str], clients: int
) -> dict[str, float]:
    """Search calls over HTTP against the trivial guess env's steps over the same server path."""
    log("[travelplanner] tool calls over HTTP")
    with ThreadPoolExecutor(clients) as pool:
        started = time.perf_counter()
        done = sum(pool.map(lambda t: _replay(client, t, searches[t]), task_ids))
        tool_calls = round(done / (time.perf_counter() - started), 1)
    log("[travelplanner] baseline: the trivial guess env over the same server path")
    with launch_local([_server("tests.fixture_env:GuessEnv")]) as base:
        trivial = EnvClient(base["tests.fixture_env:GuessEnv"], timeout=120)
        guesses = {f"train-{i}": ["guess 0"] * 11 for i in range(len(task_ids))}
        with ThreadPoolExecutor(clients) as pool:
            started = time.perf_counter()
            done = sum(pool.map(lambda t: _replay(trivial, t, guesses[t]), guesses))
            baseline = done / (time.perf_counter() - started)
        trivial.close()
    return {
        "http_tool_calls_per_s": tool_calls,
        "http_trivial_steps_per_s": round(baseline, 1),
        "http_tool_calls_vs_trivial": round(tool_calls / baseline, 2),
    }


def bench_session_memory(
    client: EnvClient, pid: int, tasks: list[Any], task_ids: list[str], count: int
) -> dict[str, float]:
    """Server memory per live session, each ten expert steps in (a notebook filled)."""
    from coevo.envs.travelplanner.env import expert_script

    log(f"[travelplanner] {count} live sessions with notebooks")
    before = rss_mb(pid)
    sessions = []
    for i in range(count):
        session = client.create(task_id=task_ids[i % len(task_ids)])
        for action in expert_script(tasks[i % len(tasks)])[:10]:
            session.step(action)
        sessions.append(session)
    result = {"session_kb": round((rss_mb(pid) - before) * 1024 / count, 1)}
    for session in sessions:
        session.close()
    return result


def bench_sole_planning(task_ids: list[str], clients: int) -> dict[str, float]:
    """The expert's pass rate in sole-planning mode (the reference information given up front)."""
    with launch_local([_server("travelplanner", {"mode": "sole-planning"})]) as servers:
        client = EnvClient(servers["travelplanner"], timeout=120)
        with ThreadPoolExecutor(clients) as pool:
            rewards = [r for r, _ in pool.map(lambda t: _expert_over_http(client, t), task_ids)]
        client.close()
    return {"sole_planning_expert_final_pass_rate": sum(r == 1.0 for r in rewards) / len(rewards)}


def main() -> None:
    args = _parse_args()
    from coevo.envs.registry import make
    from coevo.envs.travelplanner.env import expert_script
    from coevo.envs.travelplanner.tools import SEARCH_TOOLS

    result: dict[str, Any] = {} if args.skip_build else bench_sandbox()
    env = make("travelplanner")
    task_ids = [f"validation-{i}" for i in range(args.queries)]

    log(f"[travelplanner] generating {len(task_ids)} validation queries")
    started = time.perf_counter()
    tasks = [env.shared.tasks.get(t) for t in task_ids]
    result["generation_ms_per_query"] = round((time.perf_counter() - started) * 1000 / len(tasks), 1)

    searches = {t.task_id: [a for a in expert_script(t) if a.split("[", 1)[0] in SEARCH_TOOLS] for t in tasks}
    result |= bench_tool_calls([(tid, a) for tid, actions in searches.items() for a in actions])
    result |= bench_plan_evaluation(env, tasks)

    log("[travelplanner] starting the servers")
    started = time.perf_counter()
    with launch_local([_server("travelplanner")]) as servers:
        result["server_start_s"] = round(time.perf_counter() - started, 2)
        url, pid = servers["travelplanner"], servers.pids["travelplanner"]
        client = EnvClient(url, timeout=120)
        result |= bench_expert_http(client, tasks, task_ids, args.clients)
        result |= bench_http_tool_calls(client, searches, task_ids, args.clients)
        result |= bench_session_memory(client, pid, tasks, task_ids, args.sessions)
        client.close()
    if args.sole:
        result |= bench_sole_planning(task_ids[: args.sole], args.clients)

    result["targets"] = {"expert_final_pass_rate": 0.95, "session_kb": 64}
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
