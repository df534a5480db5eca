"""Per-env server footprint, the figures deploy/k8s/ sizes its resource requests from.

For each registered env (or --envs): start `coevo serve ENV` with its default data on a fresh
SQLite store, and measure the start-up time (to a healthy /health), the resident memory idle,
and again with --sessions live sessions that each took one expert step; from the two, memory
per live session and the projection at the server's --max-sessions (the default 4096, or the
`--max-sessions` its docker-compose.yml service passes: sciworld's JVM caps it). Memory is the
server's process tree (SciWorld's JVM is a child). CPU: the server's CPU seconds per expert step
over the run (one uvicorn worker uses at most one core).

    python bench/footprint.py --json [--envs alfworld bfcl] [--sessions 256]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from coevo.client import EnvClient
from coevo.client.launcher import ServerSpec, launch_local
from coevo.config import ServerConfig
from coevo.envs import registry
import yaml
from measure import cpu_seconds, log, tree_rss_mb


COMPOSE = Path(__file__).resolve().parents[1] / "docker-compose.yml"


def deployed_max_sessions(env: str) -> int:
    """The --max-sessions the env's compose service passes, else the server's default."""
    command = yaml.safe_load(COMPOSE.read_text())["services"].get(env, {}).get("command", [])
    if "--max-sessions" in command:
        return int(command[command.index("--max-sessions") + 1])
    return ServerConfig().max_sessions


def bench_env(env: str, sessions: int, workdir: Path) -> dict:
    spec = ServerSpec(env, extra_args=["--db-url", f"sqlite:///{workdir}/{env}.db"])
    start = time.perf_counter()
    with launch_local([spec], startup_timeout=900) as urls:
        start_s = time.perf_counter() - start
        pid, url = urls.pids[env], urls[env]
        with EnvClient(url, timeout=120) as client:
            warm = client.create(seed=0)  # first episode loads lazily built data
            warm.step(warm.expert_action() or "")
            warm.close()
            idle_mb = tree_rss_mb(pid)
            cpu0 = cpu_seconds(pid)
            live = []
            for seed in range(sessions):
                session = client.create(seed=seed)
                session.step(session.expert_action() or "")
                live.append(session)
            cpu_per_step_ms = (cpu_seconds(pid) - cpu0) / sessions * 1000
            busy_mb = tree_rss_mb(pid)
            for session in live:
                session.close()
    session_kb = max(0.0, busy_mb - idle_mb) * 1024 / sessions
    max_sessions = deployed_max_sessions(env)
    return {
        "env": env,
        "start_s": round(start_s, 1),
        "rss_idle_mb": round(idle_mb, 1),
        "rss_mb_with_sessions": round(busy_mb, 1),
        "session_kb": round(session_kb, 1),
        "max_sessions": max_sessions,
        "rss_at_max_sessions_mb": round(idle_mb + session_kb * max_sessions / 1024, 1),
        "cpu_ms_per_create_and_step": round(cpu_per_step_ms, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", nargs="*", default=None, help="default: every registered env")
    parser.add_argument("--sessions", type=int, default=256)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    envs = args.envs or registry.names()
    rows = []
    with tempfile.TemporaryDirectory(prefix="coevo-footprint-") as tmp:
        for env in envs:
            log(f"[footprint] {env} ...")
            rows.append(bench_env(env, args.sessions, Path(tmp)))
            log(f"[footprint] {json.dumps(rows[-1])}")
    result = {"sessions": args.sessions, "max_sessions": ServerConfig().max_sessions, "envs": rows}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for row in rows:
            print(row)


if __name__ == "__main__":
    main()
