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

    python bench/sciworld.py --json [--per-task 2] [--sessions 32] [--all] [--no-api]
        [--progress games.jsonl] [--shard I/N]
--all plays every game, round robin over the tasks (variation 0 of each task, then 1, ...), so
a run cut short covers every task; with --progress each game's row is appended as it ends and
a rerun with the same file resumes where it stopped; N processes with --shard 0/N ... N-1/N share
the file and the cores, and a last run without --shard reports every game in it.
Targets: expert_rate == 1.0 on the sample; jvm_heap_mb_per_session well under the 4 GB heap / 320
sessions the deployments allow (12.8 MB).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from scienceworld import ScienceWorldEnv

from coevo.envs import registry
from coevo.envs.sciworld import tasks
from coevo.envs.sciworld.env import SciWorldEnv
from coevo.envs.sciworld.scoring import STEP_LIMIT
from measure import log, rss_mb


def sample(per_task: int, everything: bool) -> list[tasks.Game]:
    catalogue = tasks.load()
    if everything:  # round robin over the tasks: a run cut short still covers every task
        rank: dict[str, int] = {}
        order: list[tuple[int, int, tasks.Game]] = []
        for g in catalogue.games:
            rank[g.task] = rank.get(g.task, -1) + 1
            order.append((rank[g.task], len(order), g))
        return [g for _, _, g in sorted(order, key=lambda item: item[:2])]
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
        rejected = [a for a, r in zip(env.actions, env.rejected) if r]
        if rejected:
            reason = f"the session's simulator rejects the gold action {rejected[0]!r}"
        elif moves > STEP_LIMIT or env.steps >= env.max_steps:
            reason = f"its gold path takes {len(gold)} actions; the episode ends after {STEP_LIMIT} moves"
        else:
            last = result.observation[:120] if result is not None else ""
            reason = f"the gold path ended at score {score} (done: {env.done}; last answer: {last!r})"
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


def recheck(failure: dict) -> dict:
    """Where the expert lost a game (a negative score), two replays that say whose loss it is:
    the gold path of the `scienceworld` API as AgentGym's server makes it (a fresh env, its JVM's
    default hashing) played on that env, and coevo's expert once more in a fresh coevo env."""
    game = tasks.load().by_id[failure["task_id"]]
    api = ScienceWorldEnv()
    try:
        api.load(game.task, game.variation, "", generateGoldPath=True)
        gold = [str(a) for a in api.get_gold_action_sequence()]
        api.reset()
        score, last = 0, ""
        for action in gold:
            last, _, done, info = api.step(action)
            score = int(info["score"])
            if done:
                break
    finally:
        api.close()
    env = registry.make("sciworld")
    assert isinstance(env, SciWorldEnv)
    try:
        _, _, again, _ = play(env, game)
    finally:
        env.close()
    return {
        "api_gold_actions": len(gold),
        "api_gold_score": score,
        "api_last": last[:120],
        "replay_score": 100 if again is None else again["score"],
    }


def in_shard(index: int, shard: tuple[int, int]) -> bool:
    """Whether the game at `index` of the run's order is shard (I, N)'s: every N-th from the I-th."""
    return index % shard[1] == shard[0]


def shard_spec(text: str) -> tuple[int, int]:
    """ "I/N" -> (I, N), with 0 <= I < N."""
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 0 <= int(index) < int(count)):
        raise argparse.ArgumentTypeError(f"--shard takes I/N with 0 <= I < N, not {text!r}")
    return int(index), int(count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-task", type=int, default=2)
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--sessions", type=int, default=32, help="live sessions for the memory figures (0: skip)")
    parser.add_argument("--no-api", action="store_true", help="skip the API's timing (the expert's rate only)")
    parser.add_argument("--progress", type=Path, help="append one JSON row per game played; games in it are skipped")
    parser.add_argument("--budget-s", type=float, help="start no game after this many seconds (then report)")
    parser.add_argument(
        "--shard",
        type=shard_spec,
        default=(0, 1),
        help="I/N: play only every N-th game from the I-th (0-based), so N processes sharing one --progress "
        "file cover the games once; a last run without it reports them all",
    )
    parser.add_argument(
        "--recheck",
        action="store_true",
        help="replay the API's own gold path (a fresh JVM, default hashing) for each game the expert lost below 0",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    started = time.monotonic()

    env = registry.make("sciworld")
    assert isinstance(env, SciWorldEnv)
    games = sample(args.per_task, args.all)
    done: dict[str, dict] = {}
    if args.progress is not None and args.progress.exists():
        done = {row["task_id"]: row for row in map(json.loads, args.progress.read_text().splitlines())}
    api = None if args.no_api else ScienceWorldEnv()
    resets, steps, base_resets, base_steps = [], [], [], []
    for i, game in enumerate(games):
        if game.task_id in done or not in_shard(i, args.shard):
            continue
        if args.budget_s is not None and time.monotonic() - started > args.budget_s:
            break
        reset_ms, step_ms, failure, actions = play(env, game)
        resets.append(reset_ms)
        steps += step_ms
        done[game.task_id] = row = failure or {"task_id": game.task_id, "score": 100, "steps": len(actions)}
        if args.progress is not None:
            with args.progress.open("a") as f:
                f.write(json.dumps(row) + "\n")
        if api is not None:
            b_reset, b_steps = baseline(game, actions, api)
            base_resets.append(b_reset)
            base_steps += b_steps
        log(f"[sciworld] {i + 1}/{len(games)} {game.task_id}: {len(actions)} steps, {'ok' if not failure else failure}")
    rows = [done[g.task_id] for g in games if g.task_id in done]
    failures = [row for row in rows if "reason" in row]
    if args.recheck:
        for row in failures:
            if row["score"] < 0:
                row.update(recheck(row))
                log(
                    f"[sciworld] recheck {row['task_id']}: API gold {row['api_gold_score']}, replay {row['replay_score']}"
                )
    result: dict = {
        "games": len(rows),
        "of_games": len(games),
        "played_now": len(resets),
        "tasks_covered": len({tasks.load().by_id[row["task_id"]].task for row in rows}),
        "expert_rate": round(1 - len(failures) / len(rows), 4),
        "expert_failures": failures,
        "steps": len(steps),
    }
    if resets:
        result["reset_ms_p50"] = round(statistics.median(resets), 1)
        result["step_ms_p50"] = round(statistics.median(steps), 2)
    if api is not None and base_steps:
        result["api_reset_ms_p50"] = round(statistics.median(base_resets), 1)
        result["api_step_ms_p50"] = round(statistics.median(base_steps), 2)
        result["step_speedup_vs_api"] = round(statistics.median(base_steps) / statistics.median(steps), 2)
        result["api_jvm_rss_mb_per_session"] = round(rss_mb(api._gateway.java_process.pid), 1)
    if api is not None:
        api.close()

    gold_jvm = env.shared.gold.jvm.pid
    if gold_jvm is not None:
        result["gold_jvm_rss_mb"] = round(rss_mb(gold_jvm), 1)
    jvm = env.shared.jvm
    env.close()
    if args.sessions > 0:
        idle_heap = jvm.heap_used_mb()
        live = []
        for i in range(args.sessions):
            session = registry.make("sciworld")
            session.reset(task_id=games[i % len(games)].task_id)
            session.step("look around")
            live.append(session)
        heap = jvm.heap_used_mb()
        assert jvm.pid is not None
        result["sessions"] = args.sessions
        result["jvm_heap_mb_idle"] = round(idle_heap, 1)
        result["jvm_heap_mb_per_session"] = round((heap - idle_heap) / args.sessions, 2)
        result["jvm_rss_mb_shared"] = round(rss_mb(jvm.pid), 1)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
