"""The episode list at scale: p95 of `coevo ui`'s episode pages with 1,000 and with 1,000,000
recorded steps, on SQLite and on PostgreSQL, in one run (target: at most 3x, issue #40).

Each store is filled with episodes of 10 steps (100 episodes, then 100,000), over 3 envs, 5
policies, 10 runs and a success in 3, and the same pages are fetched through the UI app
(query and HTML rendering): the newest page, the next page by its cursor, and filters by env,
by env and policy, by run, by success and by reward. The ratio is each page's p95 at 1M steps
over its p95 at 1k steps; requests alternate between the two stores, so load from
other processes weighs on both alike.

    python bench/ui.py --json [--requests 200] [--big-steps 1000000] [--no-postgres]
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from coevo.store.db import make_engine
from coevo.store.tables import Episode, StepRecord
from coevo.ui.app import UISettings, create_ui_app

ENVS, POLICIES, RUNS = (
    ("alfworld", "webshop", "bfcl"),
    [f"policy-{i}" for i in range(5)],
    [f"run-{i}" for i in range(10)],
)
STEPS_PER_EPISODE = 10
PAGES = {
    "newest": "/episodes",
    "env": "/episodes?env=webshop",
    "env+policy": "/episodes?env=bfcl&policy=policy-3",
    "run": "/episodes?run=run-7",
    "success": "/episodes?success=yes",
    "reward>=0.5": "/episodes?min_reward=0.5",
}
PG_DEFAULT = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def fill(url: str, first: int, count: int) -> None:
    """Episodes first..first+count (each with its 10 steps), inserted in chunks of 2,000."""
    engine = make_engine(url)
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    chunk = 2000
    for lo in range(first, first + count, chunk):
        episodes, steps = [], []
        for i in range(lo, min(lo + chunk, first + count)):
            at = start + timedelta(milliseconds=i)
            won = i % 3 == 0
            episodes.append({
                "id": f"{i:012d}", "session_id": f"s{i}", "env": ENVS[i % 3], "env_version": "1",
                "task_id": f"task-{i % 997}", "seed": i, "split": "test", "status": "done", "close_reason": "closed",
                "created_at": at, "updated_at": at, "closed_at": at, "total_reward": 1.0 if won else 0.0,
                "steps": STEPS_PER_EPISODE, "parent_id": None, "start_step": 0, "observation": "o" * 200, "info": {},
                "policy": POLICIES[i % 5], "run": RUNS[i % 10], "success": won,
            })  # fmt: skip
            steps += [
                {"episode_id": f"{i:012d}", "index": k, "action": f"act {k}", "observation": "x" * 200,
                 "reward": 0.0, "done": k == STEPS_PER_EPISODE, "truncated": False, "info": {}, "latency_ms": 1.0,
                 "created_at": at}
                for k in range(1, STEPS_PER_EPISODE + 1)
            ]  # fmt: skip
        with engine.begin() as conn:
            conn.execute(Episode.__table__.insert(), episodes)
            conn.execute(StepRecord.__table__.insert(), steps)
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("ANALYZE episodes"))
        else:
            conn.execute(text("ANALYZE"))
    engine.dispose()


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def measure(small_url: str, big_url: str, requests: int) -> dict[str, dict[str, float]]:
    """p95 and median (ms) of each page on both stores, through the UI app. Requests alternate
    between the stores, so load from other processes on the machine weighs on both alike."""
    out: dict[str, dict[str, float]] = {"p95_small": {}, "p95_big": {}, "p50_small": {}, "p50_big": {}}
    with (
        TestClient(create_ui_app(UISettings(db_url=small_url, runs_dir=Path("/nonexistent")))) as small,
        TestClient(create_ui_app(UISettings(db_url=big_url, runs_dir=Path("/nonexistent")))) as big,
    ):
        pages = {name: (path, path) for name, path in PAGES.items()}
        pages["second page"] = (_older_link(small), _older_link(big))
        for name, (small_path, big_path) in pages.items():
            times: dict[str, list[float]] = {"small": [], "big": []}
            for i in range(requests + 5):
                for size, ui, path in (("small", small, small_path), ("big", big, big_path)):
                    t0 = time.perf_counter()
                    answer = ui.get(path)
                    elapsed = (time.perf_counter() - t0) * 1000
                    assert answer.status_code == 200 and 'table class="episodes"' in answer.text, (
                        name,
                        answer.text[:300],
                    )
                    if i >= 5:  # the first requests warm caches
                        times[size].append(elapsed)
            for size in ("small", "big"):
                out[f"p95_{size}"][name] = round(p95(times[size]), 2)
                out[f"p50_{size}"][name] = round(statistics.median(times[size]), 2)
    return out


def _older_link(ui: TestClient) -> str:
    return ui.get("/episodes").text.split('id="older" href="')[1].split('"')[0].replace("&amp;", "&")


def bench_store(name: str, small_url: str, big_url: str, requests: int, big_steps: int) -> dict[str, Any]:
    small = 1000 // STEPS_PER_EPISODE
    big = big_steps // STEPS_PER_EPISODE
    fill(small_url, 0, small)
    t0 = time.perf_counter()
    fill(big_url, 0, big)
    fill_s = time.perf_counter() - t0
    log(f"[{name}] filled {small * STEPS_PER_EPISODE} and {big * STEPS_PER_EPISODE} steps ({fill_s:.0f}s)")
    found = measure(small_url, big_url, requests)
    ratios = {page: round(found["p95_big"][page] / found["p95_small"][page], 2) for page in found["p95_small"]}
    log(f"[{name}] p95 ratios: {ratios}")
    return {
        "store": name, "steps_small": small * STEPS_PER_EPISODE, "steps_big": big * STEPS_PER_EPISODE,
        "fill_s": round(fill_s, 1), **{f"{k}_ms": v for k, v in found.items()}, "ratio": ratios,
        "worst_ratio": max(ratios.values()), "target_met": max(ratios.values()) <= 3.0,
    }  # fmt: skip


def _pg_schema(admin: Any) -> tuple[str, str]:
    schema = f"coevo_bench_ui_{secrets.token_hex(4)}"
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    return schema, f"options=-csearch_path%3D{schema}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("--requests", type=int, default=200, help="requests per page and size")
    parser.add_argument("--big-steps", type=int, default=1_000_000, help="recorded steps of the big store")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--postgres-url", default=PG_DEFAULT)
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        results.append(
            bench_store("sqlite", f"sqlite:///{tmp}/small.db", f"sqlite:///{tmp}/big.db", args.requests, args.big_steps)
        )
    if not args.no_postgres:
        admin = create_engine(args.postgres_url)
        sep = "&" if "?" in args.postgres_url else "?"
        schemas = [_pg_schema(admin) for _ in range(2)]
        try:
            small_url, big_url = (f"{args.postgres_url}{sep}{option}" for _, option in schemas)
            results.append(bench_store("postgresql", small_url, big_url, args.requests, args.big_steps))
        finally:
            with admin.begin() as conn:
                for schema, _ in schemas:
                    conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()
    document = {"bench": "ui", "requests": args.requests, "results": results}
    if args.json:
        print(json.dumps(document, indent=2))
    else:
        for r in results:
            print(f"{r['store']}: worst p95 ratio {r['worst_ratio']} (target <= 3): {r['ratio']}")


if __name__ == "__main__":
    main()
