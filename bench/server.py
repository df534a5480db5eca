"""Env-server overhead: steps/s and latency over real HTTP, against a bare FastAPI ceiling.

Both servers run in subprocesses on 127.0.0.1 with one uvicorn worker and the same uvicorn
settings; the load comes from httpx AsyncClients in this process, `--sessions` concurrent
sessions (default 64), each a loop of requests, bounded by `--requests` per phase and
`--max-seconds` per phase and round. The phases run in interleaved rounds so that varying
background load on the machine affects them alike:

* ceiling — a bare FastAPI endpoint with the same route shape, the same request model and a
  constant response of the same size: routing, body parsing and HTTP, no work.
* single — `coevo serve` on the fixture env (episodes that never end, so every request is a
  step) with recording ON (SQLite) and leases, metrics and limits at their defaults.
* batch — the same server, each request a POST /batch/step over all sessions.
* idle memory — 10k fixture-env sessions created in process, traced with tracemalloc.

Besides throughput, the server's CPU time per request is read from /proc for each phase: on a
small machine the load generator shares the cores, and the CPU ratio shows the server's own
overhead independently of that.

    python bench/server.py --json
Targets: single_ratio >= 0.6, batch_ratio >= 10, idle_session_kb <= 64.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import httpx
from starlette.responses import Response

from coevo.client.launcher import free_port
from coevo.wire import StepRequest, StepResponse
from measure import HOST, bench_env, coevo_command, cpu_seconds, percentile, start_server, stop_server

ROOT = Path(__file__).resolve().parents[1]
BENCH_ENV = "tests.server.envs:LongGuessEnv"


# ---------------------------------------------------------------------------------- ceiling app
def ceiling_app():  # type: ignore[no-untyped-def]
    """The bare endpoint: same path shape and request model as a step, constant answer."""
    from fastapi import FastAPI

    app = FastAPI()
    body = (
        StepResponse(
            session_id="x" * 32,
            observation="higher",
            reward=0.0,
            done=False,
            truncated=False,
            info={"valid": True, "step": 1},
        )
        .model_dump_json()
        .encode()
    )

    @app.post("/sessions/{session_id}/step")
    async def step(session_id: str, request: StepRequest) -> Response:
        return Response(body, media_type="application/json")

    return app


def serve_ceiling(port: int) -> None:
    import uvicorn

    uvicorn.run(ceiling_app(), host=HOST, port=port, workers=1, log_level="warning", access_log=False)


# ---------------------------------------------------------------------------------- load
async def _step_load(
    client: httpx.AsyncClient, sids: list[str], total: int, max_s: float, record: bool
) -> tuple[int, float, list[float]]:
    """Every session loops step requests until `total` are done or `max_s` passes."""
    budget = total
    latencies: list[float] = []
    deadline = time.perf_counter() + max_s

    async def worker(sid: str) -> int:
        nonlocal budget
        done = 0
        url = f"/sessions/{sid}/step"
        payload = {"action": "guess 0"}
        while budget > 0 and time.perf_counter() < deadline:
            budget -= 1
            t0 = time.perf_counter()
            r = await client.post(url, json=payload)
            if r.status_code != 200:
                raise RuntimeError(f"step failed: {r.status_code} {r.text[:200]}")
            if record:
                latencies.append(time.perf_counter() - t0)
            done += 1
        return done

    t0 = time.perf_counter()
    counts = await asyncio.gather(*(worker(s) for s in sids))
    return sum(counts), time.perf_counter() - t0, latencies


async def _batch_load(
    client: httpx.AsyncClient, sids: list[str], total_steps: int, max_s: float, concurrency: int
) -> tuple[int, float]:
    budget = total_steps
    deadline = time.perf_counter() + max_s
    body = {"items": [{"session_id": s, "action": "guess 0"} for s in sids]}

    async def worker() -> int:
        nonlocal budget
        done = 0
        while budget > 0 and time.perf_counter() < deadline:
            budget -= len(sids)
            r = await client.post("/batch/step", json=body)
            results = r.json()["results"]
            if r.status_code != 200 or not all(x["ok"] for x in results):
                raise RuntimeError(f"batch failed: {r.status_code} {r.text[:200]}")
            done += len(results)
        return done

    t0 = time.perf_counter()
    counts = await asyncio.gather(*(worker() for _ in range(concurrency)))
    return sum(counts), time.perf_counter() - t0


def _client(port: int, sessions: int) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=sessions, max_keepalive_connections=sessions)
    return httpx.AsyncClient(base_url=f"http://{HOST}:{port}", limits=limits, timeout=30)


class Phase:
    """Accumulates one measured phase over several rounds."""

    def __init__(self) -> None:
        self.n = 0
        self.seconds = 0.0
        self.cpu = 0.0
        self.latencies: list[float] = []

    def add(self, n: int, seconds: float, cpu: float, latencies: list[float] | None = None) -> None:
        self.n += n
        self.seconds += seconds
        self.cpu += cpu
        self.latencies.extend(latencies or [])

    def summary(self) -> dict[str, float]:
        return {
            "per_s": self.n / self.seconds,
            "p50_ms": percentile(self.latencies, 0.5) * 1e3,
            "p99_ms": percentile(self.latencies, 0.99) * 1e3,
            "cpu_us": self.cpu / self.n * 1e6,
            "n": self.n,
        }


async def measure(
    ceiling_port: int, ceiling_pid: int, port: int, pid: int, args: argparse.Namespace
) -> dict[str, dict[str, float]]:
    """Rounds of ceiling, single and batch phases, interleaved so that background load on the
    machine hits all three alike."""
    ceiling, single, batch = Phase(), Phase(), Phase()
    per_round = max(1, args.requests // args.rounds)
    async with _client(ceiling_port, args.sessions) as bare, _client(port, args.sessions) as ours:
        fake = [f"s{i:031d}" for i in range(args.sessions)]
        sids = []
        for i in range(args.sessions):
            r = await ours.post("/sessions", json={"task_id": f"train-{i % 200}", "seed": i})
            r.raise_for_status()
            sids.append(r.json()["session_id"])
        await _step_load(bare, fake, args.warmup, args.max_seconds, record=False)
        await _step_load(ours, sids, args.warmup, args.max_seconds, record=False)
        await _batch_load(ours, sids, args.warmup * 4, args.max_seconds, args.batch_concurrency)
        for _ in range(args.rounds):
            cpu0 = cpu_seconds(ceiling_pid)
            n, elapsed, lat = await _step_load(bare, fake, per_round, args.max_seconds, record=True)
            ceiling.add(n, elapsed, cpu_seconds(ceiling_pid) - cpu0, lat)
            cpu0 = cpu_seconds(pid)
            n, elapsed, lat = await _step_load(ours, sids, per_round, args.max_seconds, record=True)
            single.add(n, elapsed, cpu_seconds(pid) - cpu0, lat)
            cpu0 = cpu_seconds(pid)
            n, elapsed = await _batch_load(ours, sids, per_round * 8, args.max_seconds, args.batch_concurrency)
            batch.add(n, elapsed, cpu_seconds(pid) - cpu0)
        for sid in sids:
            await ours.delete(f"/sessions/{sid}")
    return {"ceiling": ceiling.summary(), "single": single.summary(), "batch": batch.summary()}


# ---------------------------------------------------------------------------------- memory
def idle_session_kb(count: int) -> dict[str, float]:
    """Memory one idle fixture-env session costs the server (lease, env, last observation)."""
    sys.path.insert(0, str(ROOT))
    from coevo.config import ServerConfig
    from coevo.server.runtime import EnvRuntime
    from coevo.server.service import EnvService

    runtime = EnvRuntime("tests.fixture_env:GuessEnv")
    service = EnvService(runtime, ServerConfig(record=False, max_sessions=count + 1), None)

    async def fill() -> tuple[int, float]:
        await service.create(seed=0)  # warm caches (first-call allocations are not per-session)
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(count):
            await service.create(seed=i)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        return after - before, len(service.leases)

    delta, live = asyncio.run(fill())
    runtime.shutdown()
    return {"idle_session_kb": delta / count / 1024, "live": live}


# ---------------------------------------------------------------------------------- main
def run(args: argparse.Namespace) -> dict[str, Any]:
    env = bench_env()
    serve = coevo_command()
    procs = []
    with tempfile.TemporaryDirectory(prefix="coevo-bench-") as tmp:
        try:
            ceiling_port = free_port(HOST)
            procs.append(
                start_server(
                    [sys.executable, str(Path(__file__).resolve()), "--serve-ceiling", str(ceiling_port)],
                    ceiling_port,
                    env,
                    Path(tmp) / "ceiling.log",
                )
            )
            port = free_port(HOST)
            procs.append(
                start_server(
                    [
                        *serve,
                        "serve",
                        BENCH_ENV,
                        "--port",
                        str(port),
                        "--db-url",
                        f"sqlite:///{Path(tmp) / 'bench.db'}",
                    ],
                    port,
                    env,
                    Path(tmp) / "server.log",
                )
            )
            phases = asyncio.run(measure(ceiling_port, procs[0].pid, port, procs[1].pid, args))
        finally:
            for proc in procs:
                stop_server(proc)

    memory = idle_session_kb(args.idle_sessions)
    ceiling, single, batch = phases["ceiling"], phases["single"], phases["batch"]
    return {
        "ceiling_steps_per_s": round(ceiling["per_s"], 1),
        "single_steps_per_s": round(single["per_s"], 1),
        "single_ratio": round(single["per_s"] / ceiling["per_s"], 3),
        "batch_env_steps_per_s": round(batch["per_s"], 1),
        "batch_ratio": round(batch["per_s"] / single["per_s"], 2),
        "p50_ms": round(single["p50_ms"], 3),
        "p99_ms": round(single["p99_ms"], 3),
        "ceiling_p50_ms": round(ceiling["p50_ms"], 3),
        "ceiling_p99_ms": round(ceiling["p99_ms"], 3),
        "idle_session_kb": round(memory["idle_session_kb"], 2),
        "server_cpu_us_per_step": round(single["cpu_us"], 1),
        "ceiling_cpu_us_per_request": round(ceiling["cpu_us"], 1),
        "single_cpu_ratio": round(ceiling["cpu_us"] / single["cpu_us"], 3),
        "batch_cpu_us_per_env_step": round(batch["cpu_us"], 1),
        "sessions": args.sessions,
        "single_steps_measured": single["n"],
        "ceiling_requests_measured": ceiling["n"],
        "batch_env_steps_measured": batch["n"],
        "batch_size": args.sessions,
        "batch_concurrency": args.batch_concurrency,
        "rounds": args.rounds,
        "idle_sessions": args.idle_sessions,
        "targets": {"single_ratio": 0.6, "batch_ratio": 10, "idle_session_kb": 64},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--sessions", type=int, default=64, help="concurrent sessions")
    parser.add_argument(
        "--requests", type=int, default=6_000, help="measured step requests per phase, over all rounds (batch: 8x)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="interleaved measuring rounds")
    parser.add_argument("--warmup", type=int, default=600, help="unmeasured requests first")
    parser.add_argument("--max-seconds", type=float, default=20.0, help="time cap per phase and round")
    parser.add_argument("--batch-concurrency", type=int, default=2, help="batch requests in flight at once")
    parser.add_argument("--idle-sessions", type=int, default=10_000)
    parser.add_argument("--serve-ceiling", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_ceiling:
        serve_ceiling(args.serve_ceiling)
        return
    result = run(args)
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key:>28}: {value}")


if __name__ == "__main__":
    main()
