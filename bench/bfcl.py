"""BFCL benchmark: episodes per second over HTTP, in-process baseline, load time, session memory.

- single_turn_episodes_per_s / multi_turn_episodes_per_s: expert episodes (create, expert
  actions, steps, close) per second over HTTP against a `coevo serve bfcl` subprocess on
  127.0.0.1 recording to a temporary SQLite store, from one sequential client; tasks taken
  round-robin over the single-turn categories with answers (plus irrelevance) and over the four
  multi-turn categories.
- *_inprocess_episodes_per_s: the same episodes on an env instance without HTTP (the baseline),
  and http_share_* = 1 - http/in-process rate: the part of an episode's time spent on HTTP.
- expert_reward_*: mean reward of those episodes (1.0 but for entries BFCL itself cannot score).
- load_shared_s: opening the catalogue; first_category_s: parsing live_multiple on first use.
- session_kb_multi_turn: memory per live multi-turn session after its first expert step
  (tracemalloc over 200 sessions; API instances included), shared data excluded.

    python bench/bfcl.py --json [--single 400] [--multi 80]
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from coevo.client import EnvClient
from coevo.client.launcher import ServerSpec, launch_local
from coevo.envs.bfcl.tasks import MULTI_TURN_CATEGORIES, SINGLE_TURN_CATEGORIES
from coevo.envs.bfcl.env import BfclEnv
from coevo.envs.registry import make

SINGLE = [c for c in SINGLE_TURN_CATEGORIES if c != "live_relevance"]


def pick(env: BfclEnv, categories: list[str], count: int) -> list[str]:
    """`count` task ids, round-robin over categories, spread over each category."""
    pools = {c: list(env.task_ids(c)) for c in categories}
    out: list[str] = []
    for i in itertools.count():
        for c in categories:
            pool = pools[c]
            if len(out) < count:
                out.append(pool[(i * 37) % len(pool)])
        if len(out) >= count:
            return out
    return out


def play_http(client: EnvClient, task_ids: list[str]) -> tuple[float, float]:
    rewards = 0.0
    start = time.perf_counter()
    for task_id in task_ids:
        with client.create(task_id=task_id) as session:
            while True:
                result = session.step(session.expert_action() or "")
                if result.done or result.truncated:
                    rewards += result.reward
                    break
    return len(task_ids) / (time.perf_counter() - start), rewards / len(task_ids)


def play_inprocess(env: BfclEnv, task_ids: list[str]) -> float:
    start = time.perf_counter()
    for task_id in task_ids:
        env.reset(task_id=task_id)
        while not env.done:
            env.step(env.expert_action() or "")
    return len(task_ids) / (time.perf_counter() - start)


def bench_load() -> dict[str, Any]:
    start = time.perf_counter()
    shared = BfclEnv.load_shared()
    loaded = time.perf_counter()
    shared.catalog.ids("live_multiple")
    return {"load_shared_s": round(loaded - start, 3), "first_category_s": round(time.perf_counter() - loaded, 3)}


def bench_memory(sessions: int = 200) -> dict[str, Any]:
    env = make("bfcl")
    ids = pick(env, list(MULTI_TURN_CATEGORIES), sessions)
    for task_id in ids:  # warm shared caches: categories, docs, ground-truth trajectories
        env.reset(task_id=task_id)
        env.step(env.expert_action() or "")
    tracemalloc.start()
    base = tracemalloc.take_snapshot()
    live = []
    for task_id in ids:
        instance = make("bfcl")
        instance.reset(task_id=task_id)
        instance.step(instance.expert_action() or "")
        live.append(instance)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(base, "filename"))
    return {"session_kb_multi_turn": round(grown / len(live) / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--single", type=int, default=400, help="single-turn episodes")
    parser.add_argument("--multi", type=int, default=80, help="multi-turn episodes")
    args = parser.parse_args()

    result: dict[str, Any] = bench_load()
    env = make("bfcl")
    single = pick(env, SINGLE, args.single)
    multi = pick(env, list(MULTI_TURN_CATEGORIES), args.multi)
    single_local = play_inprocess(env, single)
    multi_local = play_inprocess(env, multi)

    with tempfile.TemporaryDirectory() as tmp:
        db_url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        with launch_local([ServerSpec("bfcl")], db_url=db_url) as urls:
            client = EnvClient(urls["bfcl"], timeout=60)
            play_http(client, single[:20] + multi[:4])  # warm-up: categories, truth caches
            single_rate, single_reward = play_http(client, single)
            multi_rate, multi_reward = play_http(client, multi)
            client.close()

    result.update(
        single_turn_episodes_per_s=round(single_rate, 1),
        multi_turn_episodes_per_s=round(multi_rate, 1),
        single_turn_inprocess_episodes_per_s=round(single_local, 1),
        multi_turn_inprocess_episodes_per_s=round(multi_local, 1),
        http_share_single_turn=round(1 - single_rate / single_local, 3),
        http_share_multi_turn=round(1 - multi_rate / multi_local, 3),
        expert_reward_single_turn=round(single_reward, 4),
        expert_reward_multi_turn=round(multi_reward, 4),
        single_turn_episodes=len(single),
        multi_turn_episodes=len(multi),
    )
    result.update(bench_memory())
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
