"""BIRD-SQL benchmark: the expert's rate, step latency, memory per session, and whether a runaway
query holds other sessions up.

Builds the generated set (seed 0) from scratch, starts `coevo serve birdsql` on it, and over
HTTP plays every task with the expert (its gold SQL replayed), listing each task it does not win.
Step latency is the expert steps' wall clock. Memory per session: tracemalloc over --sessions
in-process envs that each took a reset and a step. Then one session runs a runaway join (stopped
at the time limit, --time-limit) while the expert plays again on other sessions; the ratio of
their median step latency to the baseline's shows whether the runaway query held them up.

    python bench/birdsql.py --json [--sessions 256] [--time-limit 3]
Targets: expert_rate == 1.0; runaway_p50_ratio < 3 (a held-up server would wait the whole limit).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

from coevo.client import EnvClient
from coevo.client.launcher import ServerSpec, launch_local
from coevo.envs.birdsql.env import BirdSqlEnv
from coevo.envs.birdsql.generator import build_generated
from measure import percentile, rss_mb

RUNAWAY = "SELECT COUNT(*) FROM loan AS a, loan AS b, loan AS c, loan AS d"


def _play(client: EnvClient, task_ids: list[str]) -> tuple[list[float], list[dict]]:
    """Expert steps' latencies (ms) and the tasks it did not win."""
    latencies, exceptions = [], []
    for task_id in task_ids:
        with client.create(task_id=task_id) as session:
            action = session.expert_action() or ""
            t = time.perf_counter()
            result = session.step(action)
            latencies.append((time.perf_counter() - t) * 1000)
            if result.reward != 1.0:
                exceptions.append({"task_id": task_id, "reward": result.reward, "error": result.info.get("error")})
    return latencies, exceptions


def session_kib(data_dir: Path, sessions: int) -> float:
    """Python heap per live env that took one reset and one step (tracemalloc)."""
    shared = BirdSqlEnv.load_shared(data_dir=str(data_dir))
    ids = list(shared.by_id)
    warm = BirdSqlEnv(shared=shared)
    for task_id in ids:  # every gold result cached, as on a warm server
        warm.reset(task_id=task_id)
        warm.step(warm.expert_action() or "")
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    envs = []
    for i in range(sessions):
        env = BirdSqlEnv(shared=shared)
        env.reset(task_id=ids[i % len(ids)])
        env.step(env.expert_action() or "")
        envs.append(env)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    return grown / sessions / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=256, help="live envs for the memory figure")
    parser.add_argument("--time-limit", type=float, default=3.0, help="the server's time limit per statement")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-birdsql-") as tmp:
        t0 = time.perf_counter()
        data = build_generated(0, out=Path(tmp) / "bird")
        build_s = time.perf_counter() - t0
        options = {"data_dir": str(data), "time_limit": args.time_limit}
        with (
            launch_local([ServerSpec("birdsql", options)], db_url="sqlite://") as urls,
            EnvClient(urls["birdsql"], timeout=120) as client,
        ):
            task_ids = list(BirdSqlEnv.load_shared(data_dir=str(data)).by_id)
            latencies, exceptions = _play(client, task_ids)
            rss = rss_mb(urls.pids["birdsql"])
            runaway: dict = {}

            def run_away() -> None:
                with EnvClient(urls["birdsql"], timeout=120) as other, other.create(task_id=task_ids[-1]) as s:
                    t = time.perf_counter()
                    result = s.step(RUNAWAY)
                    runaway.update(wall_s=time.perf_counter() - t, timed_out=result.info.get("timed_out"))

            thread = threading.Thread(target=run_away)
            thread.start()
            time.sleep(0.2)
            during, _ = _play(client, task_ids[:40])
            runaway["in_flight_after_others"] = thread.is_alive()
            thread.join()
        out = {
            "tasks": len(task_ids),
            "build_s": round(build_s, 2),
            "expert_rate": round(1 - len(exceptions) / len(task_ids), 4),
            "expert_exceptions": exceptions,
            "step_p50_ms": round(statistics.median(latencies), 2),
            "step_p99_ms": round(percentile(latencies, 0.99), 2),
            "server_rss_mb": round(rss, 1),
            "session_kib": round(session_kib(data, args.sessions), 2),
            "time_limit_s": args.time_limit,
            "runaway_wall_s": round(runaway.get("wall_s", float("nan")), 2),
            "runaway_timed_out": runaway.get("timed_out"),
            "runaway_in_flight_after_others": runaway.get("in_flight_after_others"),
            "runaway_p50_ms_others": round(statistics.median(during), 2),
            "runaway_p50_ratio": round(statistics.median(during) / statistics.median(latencies), 2),
        }
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {v}")


if __name__ == "__main__":
    main()
