"""SciWorld benchmark: the expert's rate, reset and step latency against the `scienceworld` API
as AgentGym's server calls it, and the JVM's cost per live session.

Expert: for each of AgentGym's 23 tasks, the first --per-task variations of ScienceWorld's test
split (--all: all 4,639 games) are played in process with the expert (the simulator's gold path),
listing each game it does not finish at score 100 with the reason (its final score and done).
Latency: the same games' resets and expert steps, on coevo's env (one shared JVM, the API's step
arithmetic without its per-step valid-action listing) and on `scienceworld.ScienceWorldEnv` (one
JVM per env, `load` + `step`, AgentGym's server's calls), median ms and the ratio. Memory: the
shared JVM's live heap after a full GC with --sessions loaded sessions, per session, and the JVM's
resident size; beside it the API's cost, one JVM per session (its resident size after a load).

    python bench/sciworld.py --json [--per-task 2] [--sessions 32] [--all]
Targets: expert_rate == 1.0 on the sample; jvm_heap_mb_per_session well under the 4 GB heap / 320
sessions the deployments allow (12.8 MB).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from scienceworld import ScienceWorldEnv

from coevo.envs import registry
from coevo.envs.sciworld import tasks
from coevo.envs.sciworld.env import SciWorldEnv
from coevo.envs.sciworld.scoring import STEP_LIMIT
from measure import log, rss_mb


def sample(per_task: int, everything: bool) -> list[tasks.Game]:
    catalogue = tasks.load()
    if everything:
        return list(catalogue.games)
    games: list[tasks.Game] = []
    for name in dict.fromkeys(g.task for g in catalogue.games):
        test = [g for g in catalogue.games if g.task == name and catalogue.split_of[g.task_id] == "test"]
        games += test[:per_task]
    return games


def play(env: SciWorldEnv, game: tasks.Game) -> tuple[float, list[float], dict | None, list[str]]:
    """Reset ms, expert step ms, the failure (or None) and the actions taken."""
    t = time.perf_counter()
    env.reset(task_id=game.task_id)
    reset_ms = (time.perf_counter() - t) * 1000
    steps: list[float] = []
    score = 0
    result = None
    while (action := env.expert_action()) is not None:
        t = time.perf_counter()
        result = env.step(action)
        steps.append((time.perf_counter() - t) * 1000)
        score = int(result.info["score"])
    failure = None
    if score != 100 or not env.done:
        gold = env.shared.gold.get(game)
        moves = int(result.info["moves"]) if result is not None else 0
        if moves > STEP_LIMIT or env.steps >= env.max_steps:
            reason = f"its gold path takes {len(gold)} actions; the episode ends after {STEP_LIMIT} moves"
        else:
            reason = f"the gold path ended at score {score} (done: {env.done})"
        failure = {
            "task_id": game.task_id,
            "score": score,
            "steps": env.steps,
            "gold_actions": len(gold),
            "reason": reason,
        }
    return reset_ms, steps, failure, list(env.actions)


def baseline(game: tasks.Game, actions: list[str], api: ScienceWorldEnv) -> tuple[float, list[float]]:
    """The API's reset (load, task description, look around) and steps on the same actions."""
    t = time.perf_counter()
    api.load(game.task, game.variation)
    api.get_task_description()
    api.step("look around")
    reset_ms = (time.perf_counter() - t) * 1000
    steps = []
    for action in actions:
        t = time.perf_counter()
        api.step(action)
        steps.append((time.perf_counter() - t) * 1000)
    return reset_ms, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-task", type=int, default=2)
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--sessions", type=int, default=32)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    env = registry.make("sciworld")
    assert isinstance(env, SciWorldEnv)
    games = sample(args.per_task, args.all)
    api = ScienceWorldEnv()
    resets, steps, base_resets, base_steps, failures = [], [], [], [], []
    for i, game in enumerate(games):
        reset_ms, step_ms, failure, actions = play(env, game)
        resets.append(reset_ms)
        steps += step_ms
        if failure:
            failures.append(failure)
        b_reset, b_steps = baseline(game, actions, api)
        base_resets.append(b_reset)
        base_steps += b_steps
        log(f"[sciworld] {i + 1}/{len(games)} {game.task_id}: {len(actions)} steps, {'ok' if not failure else failure}")
    api_jvm_rss = rss_mb(api._gateway.java_process.pid)
    api.close()

    jvm = env.shared.jvm
    env.close()
    idle_heap = jvm.heap_used_mb()
    live = []
    for i in range(args.sessions):
        session = registry.make("sciworld")
        session.reset(task_id=games[i % len(games)].task_id)
        session.step("look around")
        live.append(session)
    heap = jvm.heap_used_mb()
    assert jvm.pid is not None
    result = {
        "games": len(games),
        "expert_rate": round(1 - len(failures) / len(games), 4),
        "expert_failures": failures,
        "steps": len(steps),
        "reset_ms_p50": round(statistics.median(resets), 1),
        "api_reset_ms_p50": round(statistics.median(base_resets), 1),
        "step_ms_p50": round(statistics.median(steps), 2),
        "api_step_ms_p50": round(statistics.median(base_steps), 2),
        "step_speedup_vs_api": round(statistics.median(base_steps) / statistics.median(steps), 2),
        "sessions": args.sessions,
        "jvm_heap_mb_idle": round(idle_heap, 1),
        "jvm_heap_mb_per_session": round((heap - idle_heap) / args.sessions, 2),
        "jvm_rss_mb_shared": round(rss_mb(jvm.pid), 1),
        "api_jvm_rss_mb_per_session": round(api_jvm_rss, 1),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
