"""Load and scale: many concurrent sessions against one server, and what a SIGKILL loses.

The scaling method follows OpenEnv's published one, so figures compare: for each level N
(default 64, 256, 1024, 4096, 16384), N sessions against one `coevo serve` (one uvicorn worker,
the fixture env, recording on SQLite with the default durability), each doing create, 3 steps
and delete. All N are created before any steps, so N sessions are live at once. Per level:

* success_rate — sessions whose create, steps and delete all succeeded, over N;
* steps_per_s — successful steps over the level's steps phase, wall clock;
* p50_ms / p99_ms — step latency as the client sees it (waiting for one of `--connections`
  pooled connections included);
* rss_mb — the server's peak resident memory during the level.

`max_sessions_95` is the largest level with success_rate >= 0.95.

SIGKILL: 64 sessions step as fast as they can; the server is killed once `--kill-after` steps
were acknowledged, restarted on the same database, and every session is looked up.
`sigkill_acked_lost` counts acknowledged steps missing from the recovered histories and
`sigkill_sessions_lost` acknowledged creates that answer 404 — on SQLite, and on PostgreSQL too
when $COEVO_DB_URL points at one.

    python bench/load.py --json
Targets: max_sessions_95 >= 16384 with rss_mb < 1024 at that level; both SIGKILL figures 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from coevo.client.launcher import free_port
from measure import HOST, bench_env, coevo_command, log, percentile, rss_mb, start_server, stop_server

BENCH_ENV = "tests.server.envs:LongGuessEnv"
#: Never the target, and the observation cycles (higher, lower, invalid) with the step count.
ACTIONS = ("guess 0", "guess 101", "pass")


def serve(db_url: str, port: int, max_sessions: int, connections: int, tmp: Path) -> subprocess.Popen[bytes]:
    cmd = [*coevo_command(), "serve", BENCH_ENV, "--port", str(port), "--db-url", db_url,
           "--max-sessions", str(max_sessions), "--log-level", "warning"]
    env = bench_env()
    # One load generator is one client address: let it open all its connections.
    env["COEVO_MAX_CLIENT_CONNECTIONS"] = str(max(connections, 1024))
    return start_server(cmd, port, env, tmp / f"server-{port}.log")


#: Connections per httpx client: its pool scans its connections for every request, so one
#: client with a thousand connections spends the load generator's CPU on the scan.
POOL = 32


def _client(port: int, connections: int, timeout: float) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx.AsyncClient(base_url=f"http://{HOST}:{port}", limits=limits, timeout=timeout)


class _Clients:
    """`connections` connections as small httpx clients; session i always uses the same one."""

    def __init__(self, port: int, connections: int, timeout: float) -> None:
        count = max(1, -(-connections // POOL))
        self.clients = [_client(port, min(POOL, connections), timeout) for _ in range(count)]

    def __getitem__(self, i: int) -> httpx.AsyncClient:
        return self.clients[i % len(self.clients)]

    async def __aenter__(self) -> _Clients:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await asyncio.gather(*(c.aclose() for c in self.clients))


# ---------------------------------------------------------------------------------- scaling
async def _peak_rss(pid: int, stop: asyncio.Event) -> float:
    peak = rss_mb(pid)
    while not stop.is_set():
        peak = max(peak, rss_mb(pid))
        try:
            await asyncio.wait_for(stop.wait(), timeout=0.2)
        except asyncio.TimeoutError:
            pass
    return max(peak, rss_mb(pid))


async def level(port: int, pid: int, sessions: int, args: argparse.Namespace) -> dict[str, Any]:
    """One level: `sessions` creates, then 3 steps each, then deletes, all concurrently."""
    errors: dict[str, int] = {}
    latencies: list[float] = []

    def failed(what: str) -> None:
        errors[what] = errors.get(what, 0) + 1

    async def request(c: httpx.AsyncClient, method: str, url: str, expect: int,
                      body: dict[str, Any] | None = None) -> httpx.Response | None:
        try:
            r = await c.request(method, url, json=body)
        except httpx.HTTPError as exc:
            failed(type(exc).__name__)
            return None
        if r.status_code != expect:
            failed(str(r.status_code))
            return None
        return r

    stop = asyncio.Event()
    rss = asyncio.get_running_loop().create_task(_peak_rss(pid, stop))
    async with _Clients(port, min(sessions, args.connections), args.timeout) as pool:
        t0 = time.perf_counter()

        async def create(i: int) -> str | None:
            r = await request(pool[i], "POST", "/sessions", 201, {"task_id": f"train-{i % 200}", "seed": i})
            return r.json()["session_id"] if r is not None else None

        sids = await asyncio.gather(*(create(i) for i in range(sessions)))
        created_s = time.perf_counter() - t0

        async def steps(i: int, sid: str | None) -> bool:
            if sid is None:
                return False
            for k in range(args.steps):
                t = time.perf_counter()
                if await request(pool[i], "POST", f"/sessions/{sid}/step", 200,
                                 {"action": ACTIONS[k % 3]}) is None:
                    return False
                latencies.append(time.perf_counter() - t)
            return True

        t1 = time.perf_counter()
        stepped = await asyncio.gather(*(steps(i, sid) for i, sid in enumerate(sids)))
        steps_s = time.perf_counter() - t1

        async def delete(i: int, sid: str | None) -> bool:
            return sid is not None and await request(pool[i], "DELETE", f"/sessions/{sid}", 200) is not None

        deleted = await asyncio.gather(*(delete(i, sid) for i, sid in enumerate(sids)))
        total_s = time.perf_counter() - t0
    stop.set()
    peak = await rss
    ok = sum(1 for s, d in zip(stepped, deleted) if s and d)
    return {
        "sessions": sessions,
        "success_rate": round(ok / sessions, 4),
        "steps_per_s": round(len(latencies) / steps_s, 1),
        "p50_ms": round(percentile(latencies, 0.5) * 1e3, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1e3, 2),
        "rss_mb": round(peak, 1),
        "create_s": round(created_s, 2),
        "seconds": round(total_s, 2),
        "connections": min(sessions, args.connections),
        "errors": errors,
    }


# ---------------------------------------------------------------------------------- SIGKILL
async def _load_until_killed(port: int, proc: subprocess.Popen[bytes], sessions: int,
                             kill_after: int) -> tuple[dict[str, list[str]], int]:
    """Sessions step until the server dies; it is SIGKILLed at the `kill_after`-th
    acknowledged step, with requests in flight. Returns each acknowledged session's
    acknowledged observations and the total acknowledged steps."""
    acked: dict[str, list[str]] = {}
    total = 0
    async with _Clients(port, sessions, 30) as pool:
        async def client(i: int) -> None:
            c = pool[i]
            nonlocal total
            try:
                r = await c.post("/sessions", json={"task_id": f"train-{i % 200}", "seed": i})
                if r.status_code != 201:
                    return
                sid = r.json()["session_id"]
                acked[sid] = []
                k = 0
                while True:
                    r = await c.post(f"/sessions/{sid}/step", json={"action": ACTIONS[k % 3]})
                    if r.status_code != 200:
                        return
                    acked[sid].append(r.json()["observation"])
                    total += 1
                    k += 1
                    if total == kill_after:
                        proc.send_signal(signal.SIGKILL)
            except httpx.TransportError:
                return  # the server is gone: this request was never acknowledged

        await asyncio.gather(*(client(i) for i in range(sessions)))
    return acked, total


def sigkill(db_url: str, tmp: Path, args: argparse.Namespace) -> dict[str, Any]:
    port = free_port(HOST)
    proc = serve(db_url, port, 4096, args.connections, tmp)
    try:
        acked, total = asyncio.run(_load_until_killed(port, proc, args.kill_sessions, args.kill_after))
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lost_steps = lost_sessions = unacked_extra = mismatched = 0
    proc = serve(db_url, port, 4096, args.connections, tmp)
    try:
        with httpx.Client(base_url=f"http://{HOST}:{port}", timeout=60) as c:
            for sid, observations in acked.items():
                r = c.get(f"/sessions/{sid}")
                if r.status_code == 404:
                    lost_sessions += 1
                    continue
                r.raise_for_status()
                state = r.json()
                lost_steps += max(0, len(observations) - state["steps"])
                unacked_extra += max(0, state["steps"] - len(observations))
                if state["steps"] == len(observations) and observations and \
                        state["last_observation"] != observations[-1]:
                    mismatched += 1
                c.delete(f"/sessions/{sid}")
    finally:
        stop_server(proc)
    return {"acked_lost": lost_steps, "sessions_lost": lost_sessions, "acked_steps": total,
            "sessions": len(acked), "committed_unacked_steps": unacked_extra,
            "last_observation_mismatches": mismatched}


# ---------------------------------------------------------------------------------- main
def _raise_fd_limit() -> int:
    """Every connection is a descriptor on both sides: lift the soft limit to the hard one
    (the server inherits it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def run(args: argparse.Namespace) -> dict[str, Any]:
    fd_limit = _raise_fd_limit()
    levels = sorted({int(n) for n in args.levels.split(",")})
    max_sessions = max(args.max_sessions, max(levels))
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="coevo-load-") as tmp_name:
        tmp = Path(tmp_name)
        port = free_port(HOST)
        proc = serve(f"sqlite:///{tmp / 'load.db'}", port, max_sessions, args.connections, tmp)
        try:
            for n in levels:
                log(f"level {n} ...")
                results.append(asyncio.run(level(port, proc.pid, n, args)))
                log(f"  {results[-1]}")
        finally:
            stop_server(proc)
        stores = {"sqlite": f"sqlite:///{tmp / 'sigkill.db'}"}
        pg = os.environ.get("COEVO_DB_URL", "")
        if pg.startswith("postgresql"):
            stores["postgresql"] = pg
        kills: dict[str, Any] = {}
        for name, url in stores.items():
            log(f"SIGKILL under {args.kill_sessions}-session load on {name} ...")
            kills[name] = sigkill(url, tmp, args)
            log(f"  {kills[name]}")
    passing = [r for r in results if r["success_rate"] >= 0.95]
    top = max(passing, key=lambda r: r["sessions"]) if passing else None
    return {
        "levels": results,
        "max_sessions_95": top["sessions"] if top else 0,
        "rss_mb_at_max_sessions_95": top["rss_mb"] if top else None,
        "sigkill_acked_lost": max(k["acked_lost"] for k in kills.values()),
        "sigkill_sessions_lost": max(k["sessions_lost"] for k in kills.values()),
        "sigkill": kills,
        "steps_per_session": args.steps,
        "max_connections": args.connections,
        "server_max_sessions": max_sessions,
        "fd_limit": fd_limit,
        "cpus": os.cpu_count(),
        "targets": {"max_sessions_95": 16384, "rss_mb_at_max_sessions_95": 1024,
                    "sigkill_acked_lost": 0, "sigkill_sessions_lost": 0},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--levels", default="64,256,1024,4096,16384", help="concurrent sessions per level")
    parser.add_argument("--max-sessions", type=int, default=16384,
                        help="the server's session capacity (at least the largest level)")
    parser.add_argument("--steps", type=int, default=3, help="steps per session")
    parser.add_argument("--connections", type=int, default=1024,
                        help="most HTTP connections the load generator opens at once")
    parser.add_argument("--timeout", type=float, default=120.0, help="per-request timeout, seconds")
    parser.add_argument("--kill-sessions", type=int, default=64, help="sessions under SIGKILL load")
    parser.add_argument("--kill-after", type=int, default=2000,
                        help="acknowledged steps before the SIGKILL")
    args = parser.parse_args()
    result = run(args)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>28}: {value}")


if __name__ == "__main__":
    main()
