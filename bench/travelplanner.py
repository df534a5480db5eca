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
        build = float(subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout)
        warm = float(subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--queries", type=int, default=180, help="validation queries the expert plays over HTTP")
    parser.add_argument("--sole", type=int, default=45, help="validation queries in sole-planning mode")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--skip-build", action="store_true", help="do not time a cold sandbox build")
    args = parser.parse_args()
    from coevo.envs.registry import make
    from coevo.envs.travelplanner.env import expert_script
    from coevo.envs.travelplanner.evaluation import evaluate_plan
    from coevo.envs.travelplanner.tools import SEARCH_TOOLS

    result: dict[str, Any] = {} if args.skip_build else bench_sandbox()
    env = make("travelplanner")
    task_ids = [f"validation-{i}" for i in range(args.queries)]

    log(f"[travelplanner] generating {len(task_ids)} validation queries")
    started = time.perf_counter()
    tasks = [env.shared.tasks.get(t) for t in task_ids]
    result["generation_ms_per_query"] = round((time.perf_counter() - started) * 1000 / len(tasks), 1)

    # ---------------------------------------------------------------- tool calls in process
    searches = {t.task_id: [a for a in expert_script(t) if a.split("[", 1)[0] in SEARCH_TOOLS] for t in tasks}
    calls = [(tid, a) for tid, actions in searches.items() for a in actions]
    fresh = make("travelplanner", split_sizes="validation=180")  # its own caches, all cold
    for lookup in (fresh.shared.db.flights, fresh.shared.db.accommodations, fresh.shared.db.restaurants,
                   fresh.shared.db.attractions, fresh.shared.db.drive):
        lookup.cache_clear()  # type: ignore[attr-defined]
    fresh.shared._tool_cache.clear()
    fresh.reset(task_id="validation-0")
    started = time.perf_counter()
    for _, action in calls:
        fresh.step(action)
        if fresh.done:
            fresh.reset(task_id="validation-0")
    cold = len(calls) / (time.perf_counter() - started)
    started = time.perf_counter()
    for _, action in calls:
        fresh.step(action)
        if fresh.done:
            fresh.reset(task_id="validation-0")
    result["tool_calls_per_s"] = round(cold, 1)
    result["tool_calls_per_s_cached"] = round(len(calls) / (time.perf_counter() - started), 1)

    # ---------------------------------------------------------------- plan evaluation in process
    plans = []
    for task in tasks:
        plan = task.itinerary.plan()
        broken = copy.deepcopy(plan)
        broken[1]["lunch"] = broken[1]["breakfast"]
        plans += [(task.query, plan), (task.query, broken)]
    verdicts = [evaluate_plan(q, p, env.shared.db).final_pass for q, p in plans]  # warm the lookups
    started = time.perf_counter()
    verdicts = [evaluate_plan(q, p, env.shared.db).final_pass for q, p in plans]
    result["plans_evaluated_per_s"] = round(len(plans) / (time.perf_counter() - started), 1)
    assert verdicts[0::2] == [True] * len(tasks) and not any(verdicts[1::2])

    # ---------------------------------------------------------------- over HTTP
    spec = ServerSpec("travelplanner", {}, extra_args=["--no-record", "--idle-ttl", "0"])
    sole = ServerSpec("travelplanner", {"mode": "sole-planning"}, extra_args=["--no-record", "--idle-ttl", "0"])
    log("[travelplanner] starting the servers")
    started = time.perf_counter()
    with launch_local([spec]) as servers:
        result["server_start_s"] = round(time.perf_counter() - started, 2)
        url, pid = servers["travelplanner"], servers.pids["travelplanner"]
        client = EnvClient(url, timeout=120)
        log(f"[travelplanner] expert on {len(task_ids)} queries over HTTP")
        started = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            outcomes = list(pool.map(lambda t: _expert_over_http(client, t), task_ids))
        elapsed = time.perf_counter() - started
        rewards = [r for r, _ in outcomes]
        result["expert_final_pass_rate"] = sum(r == 1.0 for r in rewards) / len(rewards)
        result["expert_queries"] = len(rewards)
        result["expert_steps_per_episode"] = round(sum(s for _, s in outcomes) / len(outcomes), 1)
        result["expert_episodes_per_s_http"] = round(len(rewards) / elapsed, 2)
        cells: dict[str, list[float]] = defaultdict(list)
        for task, reward in zip(tasks, rewards):
            cells[f"{task.query.level}-{task.query.days}"].append(reward)
        result["expert_final_pass_rate_by_cell"] = {k: sum(v) / len(v) for k, v in sorted(cells.items())}

        log("[travelplanner] tool calls over HTTP")
        with ThreadPoolExecutor(args.clients) as pool:
            started = time.perf_counter()
            done = sum(pool.map(lambda t: _replay(client, t, searches[t]), task_ids))
            result["http_tool_calls_per_s"] = round(done / (time.perf_counter() - started), 1)

        log("[travelplanner] baseline: the trivial guess env over the same server path")
        with launch_local([ServerSpec("tests.fixture_env:GuessEnv", {}, extra_args=["--no-record", "--idle-ttl", "0"])]) as base:
            trivial = EnvClient(base["tests.fixture_env:GuessEnv"], timeout=120)
            guesses = {f"train-{i}": ["guess 0"] * 11 for i in range(len(task_ids))}
            with ThreadPoolExecutor(args.clients) as pool:
                started = time.perf_counter()
                done = sum(pool.map(lambda t: _replay(trivial, t, guesses[t]), guesses))
                baseline = done / (time.perf_counter() - started)
            trivial.close()
        result["http_trivial_steps_per_s"] = round(baseline, 1)
        result["http_tool_calls_vs_trivial"] = round(result["http_tool_calls_per_s"] / baseline, 2)

        log(f"[travelplanner] {args.sessions} live sessions with notebooks")
        before = rss_mb(pid)
        sessions = []
        for i in range(args.sessions):
            session = client.create(task_id=task_ids[i % len(task_ids)])
            for action in expert_script(tasks[i % len(tasks)])[:10]:
                session.step(action)
            sessions.append(session)
        result["session_kb"] = round((rss_mb(pid) - before) * 1024 / args.sessions, 1)
        for session in sessions:
            session.close()
        client.close()

    if args.sole:
        with launch_local([sole]) as servers:
            client = EnvClient(servers["travelplanner"], timeout=120)
            with ThreadPoolExecutor(args.clients) as pool:
                sole_rewards = [r for r, _ in pool.map(lambda t: _expert_over_http(client, t), task_ids[: args.sole])]
            client.close()
        result["sole_planning_expert_final_pass_rate"] = sum(r == 1.0 for r in sole_rewards) / len(sole_rewards)

    result["targets"] = {"expert_final_pass_rate": 0.95, "session_kb": 64}
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
