"""Rollout-engine benchmark: does running episodes concurrently hide the server round trips?

One `coevo serve ENV` subprocess (default alfworld, recording to a temporary SQLite store) and
the expert policy, which costs two requests per env step (GET expert, POST step) plus create
and close per episode — the cheapest possible policy, so any overhead of the engine shows.

- episodes_per_s_{1,8,32}, steps_per_s_{1,8,32}: the rollout engine with that many episodes in
  flight (each run long enough to reach a steady state).
- speedup_8, speedup_32: episodes/s relative to one episode at a time.
- server_saturated_steps_per_s: the same request mix from 64 concurrent bare client loops
  (no engine), i.e. what the server (sharing these CPUs with its client) can take at most.
  Clients are sharded 2 episodes per httpx pool, engine and load generator alike
  (`coevo.client.rollout.EPISODES_PER_CLIENT`: httpcore's per-request pool bookkeeping grows
  with the pool).
- target_steps_per_s_8 = 0.8 × min(8 × steps_per_s_1, server_saturated_steps_per_s), and
  target_met: the engine hides latency until the server is the bottleneck.

    python bench/rollouts.py --json [--env alfworld] [--split train] [--episodes 48]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from coevo.client.evaluation import episode_specs, pick_tasks
from coevo.client.launcher import ServerSpec, launch_local
from coevo.client.policies.expert import ExpertPolicy
from coevo.client.rollout import RolloutEngine, sharded_clients


async def engine_rate(url: str, env: str, split: str, concurrency: int, episodes: int) -> dict[str, float]:
    async with sharded_clients(url, concurrency) as clients:
        tasks = await pick_tasks(clients[0], env, split, episodes)
        engine = RolloutEngine(ExpertPolicy(), {env: clients}, concurrency=concurrency)
        await engine.run(episode_specs(tasks[: min(4, len(tasks))]))  # warm the server's game cache
        start = time.perf_counter()
        trajectories = await engine.run(episode_specs(tasks))
        elapsed = time.perf_counter() - start
    if any(not t.scored for t in trajectories):  # an env, policy or transport error (coevo.end_status)
        raise RuntimeError(f"episodes failed: {[t.error for t in trajectories if t.error][:3]}")
    steps = sum(t.steps for t in trajectories)
    return {"episodes_per_s": len(trajectories) / elapsed, "steps_per_s": steps / elapsed}


async def saturated_rate(url: str, split: str, loops: int, seconds: float) -> float:
    """Steps/s from `loops` bare client loops (create, expert + step until done, close)."""
    async with sharded_clients(url, loops) as clients:
        stop = time.perf_counter() + seconds
        counts = [0] * loops

        async def loop(i: int) -> None:
            client = clients[i % len(clients)]
            seed = i * 100_003
            while time.perf_counter() < stop:
                session = await client.create(split=split, seed=seed)
                seed += 1
                try:
                    while time.perf_counter() < stop:
                        result = await session.step((await session.expert_action()) or "look")
                        counts[i] += 1
                        if result.done or result.truncated:
                            break
                finally:
                    await session.close()

        start = time.perf_counter()
        await asyncio.gather(*(loop(i) for i in range(loops)))
        return sum(counts) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--env", default="alfworld")
    parser.add_argument("--split", default="train")
    parser.add_argument("--episodes", type=int, default=64, help="episodes per concurrency level (at least 2x it)")
    parser.add_argument("--saturation-s", type=float, default=8.0)
    args = parser.parse_args()

    out: dict[str, Any] = {"env": args.env}
    with tempfile.TemporaryDirectory() as tmp:
        db_url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        with launch_local([ServerSpec(args.env)], db_url=db_url) as servers:
            url = servers[args.env]
            for c in (1, 8, 32):
                n = max(args.episodes, 2 * c) if c > 1 else max(8, args.episodes // 4)
                rate = asyncio.run(engine_rate(url, args.env, args.split, c, n))
                out[f"episodes_per_s_{c}"] = round(rate["episodes_per_s"], 3)
                out[f"steps_per_s_{c}"] = round(rate["steps_per_s"], 2)
            out["server_saturated_steps_per_s"] = round(
                asyncio.run(saturated_rate(url, args.split, 64, args.saturation_s)), 2
            )
    out["speedup_8"] = round(out["episodes_per_s_8"] / out["episodes_per_s_1"], 2)
    out["speedup_32"] = round(out["episodes_per_s_32"] / out["episodes_per_s_1"], 2)
    target = 0.8 * min(8 * out["steps_per_s_1"], out["server_saturated_steps_per_s"])
    out["target_steps_per_s_8"] = round(target, 2)
    out["target_met"] = out["steps_per_s_8"] >= target
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:32s} {value}")


if __name__ == "__main__":
    main()
