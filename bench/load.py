"""Load and scale: many concurrent sessions against one server, and what a SIGKILL loses.

The scaling method follows OpenEnv's published one, so figures compare: for each level N
(default 64, 256, 1024, 4096, 16384), N sessions against one `coevo serve` (one uvicorn worker,
the fixture env, recording on SQLite with the default durability), each doing create, 3 steps
and delete, over a bounded number of HTTP/1.1 keep-alive connections (`--connections`, 1024;
OpenEnv's HTTP mode uses an httpx pool of 1000). All N are created before any steps, so N
sessions are live at once. Per level:

* success_rate — sessions whose create, steps and delete all succeeded, over N;
* steps_per_s — successful steps over the level's steps phase, wall clock;
* p50_ms / p99_ms — step latency as the client sees it, from issuing the request (waiting for a
  free connection included); wire_p50_ms / wire_p99_ms — from writing it on a connection;
* rss_mb — the server's peak resident memory during the level;
* server_us_per_request / client_us_per_request — CPU each side spent per request, so a run
  shows whether the load generator or the server was the limit.

The load generator is bench/loadgen.py (asyncio streams, no httpx: httpx's ~1 ms of CPU per
request made run 1 measure the client), in `--procs` processes of its own. Its module docstring
says exactly what counts as a failure; no request is retried. `max_sessions_95` is the largest
level with success_rate >= 0.95.

SIGKILL: 64 sessions step as fast as they can; the server is killed once `--kill-after` steps
were acknowledged, restarted on the same database, and every session is looked up.
`sigkill_acked_lost` counts acknowledged steps missing from the recovered histories and
`sigkill_sessions_lost` acknowledged creates that answer 404 — on SQLite, and on PostgreSQL too
when $COEVO_DB_URL points at one.

    python bench/load.py --json
    python bench/load.py --attacks --json     (bench/attacks.py: attack requests vs ordinary ones)
Targets: max_sessions_95 >= 16384 with rss_mb < 1024 at that level; both SIGKILL figures 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from coevo.client.launcher import free_port
from loadgen import Pool, RequestFailed, Response, loop_name
from loadgen import run as run_loop
from measure import (
    HOST,
    bench_env,
    coevo_command,
    cpu_seconds,
    log,
    percentile,
    rss_mb,
    sched_seconds,
    start_server,
    stop_server,
)

BENCH_ENV = "tests.server.envs:LongGuessEnv"
#: Never the target, and the observation cycles (higher, lower, invalid) with the step count.
ACTIONS = ("guess 0", "guess 101", "pass")


#: `coevo` under cProfile timed by the main thread's CPU clock (the event loop's own work; a
#: wall-clock profile on a shared machine charges other processes' time to whatever function
#: was preempted). argv[1] is the output file; written however the server ends.
_PROFILED = """import cProfile, sys, time
from coevo.cli import main
out, sys.argv = sys.argv[1], ["coevo", *sys.argv[2:]]
profile = cProfile.Profile(time.thread_time)
try:
    profile.runcall(main)
finally:
    profile.dump_stats(out)
"""


def serve(
    db_url: str, port: int, max_sessions: int, connections: int, tmp: Path, profile: Path | None = None
) -> subprocess.Popen[bytes]:
    base = [sys.executable, "-c", _PROFILED, str(profile)] if profile else coevo_command()
    cmd = [
        *base,
        "serve",
        BENCH_ENV,
        "--port",
        str(port),
        "--db-url",
        db_url,
        "--max-sessions",
        str(max_sessions),
        "--log-level",
        "warning",
    ]
    env = bench_env()
    # One load generator stands in for many clients behind one address: let it open all its
    # connections, with room for ones it closed whose close the server has not processed yet.
    env["COEVO_MAX_CLIENT_CONNECTIONS"] = str(max(2 * connections, 1024))
    return start_server(cmd, port, env, tmp / f"server-{port}.log")


def _cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# ---------------------------------------------------------------------------------- scaling
async def _drive(
    port: int, indices: list[int], connections: int, args: argparse.Namespace, barrier: Any
) -> dict[str, Any]:
    """One load generator process's share of a level: create every session of `indices`, then
    (once every process has created its share, so all of the level's sessions are live) step
    each `args.steps` times, then delete them. The phases meet at `barrier` across processes."""
    pool = Pool(HOST, port, connections, timeout_s=args.timeout, idle_reuse_s=args.idle_reuse)
    errors: Counter[str] = Counter()
    latencies: list[float] = []
    wire: list[float] = []

    async def request(method: str, path: str, expect: int, body: bytes = b"") -> Response | None:
        try:
            r = await pool.request(method, path, body)
        except RequestFailed as exc:
            errors[exc.kind] += 1
            return None
        if r.status != expect:
            errors[str(r.status)] += 1
            return None
        return r

    async def create(i: int) -> str | None:
        body = json.dumps({"task_id": f"train-{i % 200}", "seed": i}).encode()
        r = await request("POST", "/sessions", 201, body)
        return json.loads(r.body)["session_id"] if r is not None else None

    async def steps(sid: str | None) -> bool:
        if sid is None:
            return False
        for k in range(args.steps):
            t = time.perf_counter()
            r = await request("POST", f"/sessions/{sid}/step", 200, json.dumps({"action": ACTIONS[k % 3]}).encode())
            if r is None:
                return False
            latencies.append(time.perf_counter() - t)
            wire.append(r.wire_s)
        return True

    async def delete(sid: str | None) -> bool:
        return sid is not None and await request("DELETE", f"/sessions/{sid}", 200) is not None

    cpu0 = _cpu_self()
    marks = {}
    barrier.wait()
    marks["create"] = time.monotonic()
    sids = await asyncio.gather(*(create(i) for i in indices))
    marks["created"] = time.monotonic()
    barrier.wait()  # all of the level's sessions are live
    marks["steps"] = time.monotonic()
    stepped = await asyncio.gather(*(steps(sid) for sid in sids))
    marks["stepped"] = time.monotonic()
    barrier.wait()
    marks["delete"] = time.monotonic()
    deleted = await asyncio.gather(*(delete(sid) for sid in sids))
    marks["deleted"] = time.monotonic()
    pool.close()
    return {
        "ok": sum(1 for s, d in zip(stepped, deleted) if s and d),
        "created": sum(1 for sid in sids if sid is not None),
        "latencies": latencies,
        "wire": wire,
        "errors": dict(errors),
        "marks": marks,
        "cpu_s": _cpu_self() - cpu0,
        "requests": pool.stats.requests,
        "connections_opened": pool.stats.opened,
        "connect_s_total": pool.stats.connect_s_total,
        "connect_s_max": pool.stats.connect_s_max,
        "reopened": {
            "idle": pool.stats.reopened_idle,
            "eof": pool.stats.reopened_eof,
            "close": pool.stats.reopened_close,
        },
    }


def _worker(port: int, indices: list[int], connections: int, args: argparse.Namespace, barrier: Any, out: Any) -> None:
    try:
        out.send(run_loop(_drive(port, indices, connections, args, barrier)))
    except BaseException as exc:  # the parent reports it; the barrier must not hang the others
        barrier.abort()
        out.send({"failed": repr(exc)})


def _peak_rss(pid: int, stop: threading.Event, peak: list[float]) -> None:
    while not stop.wait(0.2):
        peak[0] = max(peak[0], rss_mb(pid))
    peak[0] = max(peak[0], rss_mb(pid))


def _store_counts(port: int) -> tuple[float, float]:
    """(rows written, transactions) from the server's /metrics: their ratio is the group
    commit's batch size."""
    with urllib.request.urlopen(f"http://{HOST}:{port}/metrics", timeout=60) as r:
        text = r.read().decode()

    def value(name: str) -> float:
        found = re.search(rf"^{name}{{[^}}]*}} ([0-9.e+]+)$", text, re.M)
        return float(found.group(1)) if found else float("nan")

    return value("coevo_store_rows_written_total"), value("coevo_store_transactions_total")


def level(port: int, pid: int, sessions: int, args: argparse.Namespace) -> dict[str, Any]:
    """One level: `sessions` creates, then `args.steps` steps each, then deletes, from
    `args.procs` load generator processes (session i in process i % procs)."""
    procs = max(1, min(args.procs, sessions))
    connections = min(sessions, args.connections)
    ctx = mp.get_context("fork")  # forked before the RSS thread starts
    barrier = ctx.Barrier(procs, timeout=args.timeout * (args.steps + 2) + 60)
    workers = []
    for p in range(procs):
        indices = list(range(p, sessions, procs))
        share = max(1, connections // procs + (1 if p < connections % procs else 0))
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_worker, args=(port, indices, share, args, barrier, send), daemon=True)
        proc.start()
        send.close()
        workers.append((proc, recv))
    rows0, commits0 = _store_counts(port)
    server_cpu0 = cpu_seconds(pid)
    _, server_wait0 = sched_seconds(pid)
    stop, peak = threading.Event(), [rss_mb(pid)]
    sampler = threading.Thread(target=_peak_rss, args=(pid, stop, peak), daemon=True)
    sampler.start()
    parts = []
    for proc, recv in workers:
        parts.append(recv.recv())
        proc.join()
    stop.set()
    sampler.join()
    server_cpu = cpu_seconds(pid) - server_cpu0
    server_wait = sched_seconds(pid)[1] - server_wait0
    rows1, commits1 = _store_counts(port)
    broken = [p["failed"] for p in parts if "failed" in p]
    if broken:
        raise RuntimeError(f"a load generator process failed: {broken}")
    latencies = [x for p in parts for x in p["latencies"]]
    wire = [x for p in parts for x in p["wire"]]
    errors: Counter[str] = Counter()
    for p in parts:
        errors.update(p["errors"])

    def span(start: str, end: str) -> float:
        return max(p["marks"][end] for p in parts) - min(p["marks"][start] for p in parts)

    steps_s = span("steps", "stepped")
    requests = sum(p["requests"] for p in parts)
    client_cpu = sum(p["cpu_s"] for p in parts)
    ok = sum(p["ok"] for p in parts)
    return {
        "sessions": sessions,
        "success_rate": round(ok / sessions, 4),
        "steps_per_s": round(len(latencies) / steps_s, 1),
        "p50_ms": round(percentile(latencies, 0.5) * 1e3, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1e3, 2),
        "wire_p50_ms": round(percentile(wire, 0.5) * 1e3, 2),
        "wire_p99_ms": round(percentile(wire, 0.99) * 1e3, 2),
        "rss_mb": round(peak[0], 1),
        "create_s": round(span("create", "created"), 2),
        "steps_s": round(steps_s, 2),
        "delete_s": round(span("delete", "deleted"), 2),
        "seconds": round(span("create", "deleted"), 2),
        "requests": requests,
        "server_cpu_s": round(server_cpu, 2),
        "client_cpu_s": round(client_cpu, 2),
        "server_loop_cpu_wait_s": round(server_wait, 2),
        "server_us_per_request": round(server_cpu / max(requests, 1) * 1e6),
        "client_us_per_request": round(client_cpu / max(requests, 1) * 1e6),
        "store_commits": int(commits1 - commits0),
        "store_rows_per_commit": round((rows1 - rows0) / max(1.0, commits1 - commits0), 1),
        "connections": connections,
        "load_generator_processes": procs,
        "connections_opened": sum(p["connections_opened"] for p in parts),
        "reopened_before_send": {k: sum(p["reopened"][k] for p in parts) for k in ("idle", "eof", "close")},
        "connect_ms_mean": round(
            sum(p["connect_s_total"] for p in parts) / max(1, sum(p["connections_opened"] for p in parts)) * 1e3, 2
        ),
        "connect_ms_max": round(max(p["connect_s_max"] for p in parts) * 1e3, 2),
        "errors": dict(errors),
    }


# ---------------------------------------------------------------------------------- SIGKILL
async def _load_until_killed(
    port: int, proc: subprocess.Popen[bytes], sessions: int, kill_after: int
) -> tuple[dict[str, list[str]], int]:
    """Sessions step until the server dies; it is SIGKILLed at the `kill_after`-th
    acknowledged step, with requests in flight. Returns each acknowledged session's
    acknowledged observations and the total acknowledged steps."""
    acked: dict[str, list[str]] = {}
    total = 0
    pool = Pool(HOST, port, sessions, timeout_s=30)

    async def client(i: int) -> None:
        nonlocal total
        try:
            r = await pool.request("POST", "/sessions", json.dumps({"task_id": f"train-{i % 200}", "seed": i}).encode())
            if r.status != 201:
                return
            sid = json.loads(r.body)["session_id"]
            acked[sid] = []
            k = 0
            while True:
                r = await pool.request("POST", f"/sessions/{sid}/step", json.dumps({"action": ACTIONS[k % 3]}).encode())
                if r.status != 200:
                    return
                acked[sid].append(json.loads(r.body)["observation"])
                total += 1
                k += 1
                if total == kill_after:
                    proc.send_signal(signal.SIGKILL)
        except RequestFailed:
            return  # the server is gone: this request was never acknowledged

    try:
        await asyncio.gather(*(client(i) for i in range(sessions)))
    finally:
        pool.close()
    return acked, total


def sigkill(db_url: str, tmp: Path, args: argparse.Namespace) -> dict[str, Any]:
    port = free_port(HOST)
    proc = serve(db_url, port, 4096, args.connections, tmp)
    try:
        acked, total = run_loop(_load_until_killed(port, proc, args.kill_sessions, args.kill_after))
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
                if (
                    state["steps"] == len(observations)
                    and observations
                    and state["last_observation"] != observations[-1]
                ):
                    mismatched += 1
                c.delete(f"/sessions/{sid}")
    finally:
        stop_server(proc)
    return {
        "acked_lost": lost_steps,
        "sessions_lost": lost_sessions,
        "acked_steps": total,
        "sessions": len(acked),
        "committed_unacked_steps": unacked_extra,
        "last_observation_mismatches": mismatched,
    }


# ---------------------------------------------------------------------------------- main
def _raise_fd_limit() -> int:
    """Every connection is a descriptor on both sides: lift the soft limit to the hard one
    (the server inherits it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def run(args: argparse.Namespace) -> dict[str, Any]:
    fd_limit = _raise_fd_limit()
    load_start = [round(x, 2) for x in os.getloadavg()]
    levels = sorted({int(n) for n in args.levels.split(",")})
    max_sessions = max(args.max_sessions, max(levels))
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="coevo-load-") as tmp_name:
        tmp = Path(tmp_name)
        port = free_port(HOST)
        profile = Path(args.profile_server).resolve() if args.profile_server else None
        proc = serve(f"sqlite:///{tmp / 'load.db'}", port, max_sessions, args.connections, tmp, profile)
        try:
            for n in levels:
                log(f"level {n} ...")
                results.append(level(port, proc.pid, n, args))
                results[-1]["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
                log(f"  {results[-1]}")
        finally:
            if profile is not None:
                # uvicorn re-raises SIGTERM after its shutdown, which would kill cProfile before
                # it writes; SIGINT ends as KeyboardInterrupt, after which it still writes.
                proc.send_signal(signal.SIGINT)
                proc.wait(timeout=60)
            stop_server(proc)
        if profile is not None:
            log(f"server profile in {profile} (python -m pstats {profile})")
        stores = {"sqlite": f"sqlite:///{tmp / 'sigkill.db'}"} if args.kill_sessions else {}
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
        "sigkill_acked_lost": max((k["acked_lost"] for k in kills.values()), default=None),
        "sigkill_sessions_lost": max((k["sessions_lost"] for k in kills.values()), default=None),
        "sigkill": kills,
        "steps_per_session": args.steps,
        "max_connections": args.connections,
        "load_generator_processes": args.procs,
        "load_generator_loop": loop_name(),
        "idle_reuse_s": args.idle_reuse,
        "request_timeout_s": args.timeout,
        "load_average_start": load_start,
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
        "server_max_sessions": max_sessions,
        "fd_limit": fd_limit,
        "cpus": os.cpu_count(),
        "targets": {
            "max_sessions_95": 16384,
            "rss_mb_at_max_sessions_95": 1024,
            "sigkill_acked_lost": 0,
            "sigkill_sessions_lost": 0,
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--levels", default="64,256,1024,4096,16384", help="concurrent sessions per level")
    parser.add_argument(
        "--max-sessions", type=int, default=16384, help="the server's session capacity (at least the largest level)"
    )
    parser.add_argument("--steps", type=int, default=3, help="steps per session")
    parser.add_argument(
        "--connections", type=int, default=1024, help="most HTTP connections the load generator opens at once"
    )
    parser.add_argument(
        "--procs",
        type=int,
        default=1,
        help="load generator processes (each its own event loop and GIL; the "
        "sessions and connections are split between them)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="per-request timeout, seconds, from issuing it (the wait for a free connection included)",
    )
    parser.add_argument(
        "--idle-reuse",
        type=float,
        default=2.0,
        help="reuse a kept-alive connection only if idle less than this (uvicorn closes idle ones after 5 s)",
    )
    parser.add_argument(
        "--profile-server", default="", help="run the server under cProfile and write its profile to this file"
    )
    parser.add_argument(
        "--kill-sessions", type=int, default=64, help="sessions under SIGKILL load (0: skip the SIGKILL runs)"
    )
    parser.add_argument("--kill-after", type=int, default=2000, help="acknowledged steps before the SIGKILL")
    parser.add_argument(
        "--attacks",
        action="store_true",
        help="measure attack requests against ordinary ones instead (bench/attacks.py)",
    )
    parser.add_argument("--attack-repeats", type=int, default=5, help="times each attack is sent")
    parser.add_argument("--pinned-sessions", type=int, default=1300, help="sessions of the per-session memory measure")
    args = parser.parse_args()
    if args.attacks:
        from attacks import run_attacks

        result = run_attacks(args.attack_repeats, args.pinned_sessions)
    else:
        result = run(args)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>28}: {value}")


if __name__ == "__main__":
    main()
