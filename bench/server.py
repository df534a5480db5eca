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
* default (issue #42) — a default `coevo serve alfworld` (SQLite, durable acks) with 1,024 live
  sessions under wrk (64 connections), against a bare FastAPI step route (default pydantic
  parsing and response serialization, answering the observation and info of a real ALFWorld
  step) in the same run, rounds interleaved; each server pinned to core 0, wrk to core 1.
  `default_single_ratio` is their ratio of steps/s; p50/p99 are wrk's at 64 connections; a
  last run under py-spy splits the server's CPU per step into HTTP, service, env and store
  (bench/layers.py). Every session starts a new episode before each measured run (outside
  it), so the runs are steps only (bench/data/wrk_step.lua resets a session only past 47 steps).
* scale (`--scale`, alone) — one default server process against two on one store, pinned to
  cores 0 and 1, wrk sharing the cores: how far one env goes past one core (docs/server.md).

Besides throughput, the server's CPU time per request is read from /proc for each phase: on a
small machine the load generator shares the cores, and the CPU ratio shows the server's own
overhead independently of that.

    python bench/server.py --json [--check] [--only-default] [--profile-out DIR]
Targets: single_ratio >= 0.6, default_single_ratio >= 0.6, batch_ratio >= 20,
idle_session_kb <= 64. `--check` exits non-zero when default_single_ratio < 0.5.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
import tempfile
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from starlette.responses import Response

from coevo.client.launcher import free_port
from coevo.wire import ResetRequest, SessionResponse, StepRequest, StepResponse
from layers import py_spy_path, record, shares, top_frames
from measure import HOST, bench_env, coevo_command, cpu_seconds, log, percentile, start_server, stop_server
from wrk_load import WrkRun, pinned, run_steps, wrk_path

ROOT = Path(__file__).resolve().parents[1]
BENCH_ENV = "tests.server.envs:LongGuessEnv"
DEFAULT_ENV = "alfworld"
#: Below this default_single_ratio, `--check` fails.
CHECK_RATIO = 0.5
SERVER_CORE, LOAD_CORE = 0, 1


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


def bare_app(sample: dict[str, Any]):  # type: ignore[no-untyped-def]
    """The baseline of `default_single_ratio`: FastAPI as its documentation shows it, a step
    route whose body is parsed by pydantic and whose answer FastAPI validates and serializes,
    with the observation and info of a real step (`sample`). No env, no store, no sessions."""
    from fastapi import FastAPI

    app = FastAPI()

    @app.post("/sessions/{session_id}/step", response_model=StepResponse)
    async def step(session_id: str, body: StepRequest) -> StepResponse:
        return StepResponse(
            session_id=session_id,
            observation=sample["observation"],
            reward=0.0,
            done=False,
            truncated=False,
            info=sample["info"],
        )

    @app.post("/sessions/{session_id}/reset", response_model=SessionResponse)
    async def reset(session_id: str, body: ResetRequest) -> SessionResponse:
        return SessionResponse(session_id=session_id, observation=sample["observation"], info=sample["info"])

    return app


def serve_bare(port: int, sample_file: str) -> None:
    import uvicorn

    sample = json.loads(Path(sample_file).read_text())
    uvicorn.run(bare_app(sample), host=HOST, port=port, workers=1, log_level="warning", access_log=False)


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


# ---------------------------------------------------------------------------------- default server
async def _post(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> httpx.Response:
    """POST, tried again on a dropped connection (a loaded machine's kept-alive connections)."""
    for attempt in range(3):
        try:
            r = await client.post(url, json=body)
            break
        except httpx.TransportError:
            if attempt == 2:
                raise
            await asyncio.sleep(0.5)
    r.raise_for_status()
    return r


async def _open_sessions(port: int, count: int, ids_file: Path) -> dict[str, Any]:
    """`count` sessions on the server at `port`, their ids written to `ids_file`, and the
    observation and info of one step of one more session (the bare route answers those)."""
    async with _client(port, 16) as client:
        gate = asyncio.Semaphore(16)

        async def create(seed: int) -> str:
            async with gate:
                r = await _post(client, "/sessions", {"seed": seed})
                return str(r.json()["session_id"])

        sids = await asyncio.gather(*(create(seed) for seed in range(count)))
        probe = await create(count)
        r = await client.post(f"/sessions/{probe}/step", json={"action": "look"})
        r.raise_for_status()
        await client.delete(f"/sessions/{probe}")
    ids_file.write_text("\n".join(sids) + "\n")
    return {"observation": r.json()["observation"], "info": r.json()["info"]}


#: Requests sent so far to each sessions file, so resets keep coming every 40 visits.
_sent: dict[Path, int] = {}


#: Visits to a session before the wrk script resets it: only a run longer than 47 steps a session
#: resets (ALFWorld's cap is 50), so the measured load is steps; `_fresh_episodes` resets between runs.
EPISODE_VISITS = 48


def _wrk(port: int, ids: Path, seconds: float, args: argparse.Namespace) -> WrkRun:
    offset = _sent.get(ids, 0)
    run = run_steps(
        port,
        ids,
        seconds=seconds,
        connections=args.connections,
        core=LOAD_CORE,
        episode=EPISODE_VISITS,
        offset=offset,
    )
    _sent[ids] = offset + run.requests
    return run


async def _reset_all(port: int, sids: list[str]) -> None:
    async with _client(port, 16) as client:
        gate = asyncio.Semaphore(16)

        async def reset(sid: str) -> None:
            async with gate:
                await _post(client, f"/sessions/{sid}/reset", {})

        await asyncio.gather(*(reset(sid) for sid in sids))


def _fresh_episodes(port: int, ids: Path) -> None:
    """A new episode in every session, before a measured run and outside it, so that the run
    is all steps (an ALFWorld reset builds a scene: in the measured load it would count as the
    step path's cost; the bare route's resets cost nothing)."""
    asyncio.run(_reset_all(port, ids.read_text().split()))
    _sent[ids] = 0


def measure_default(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """The default `coevo serve alfworld` against the bare FastAPI route, under wrk."""
    if wrk_path() is None:
        raise RuntimeError("wrk is not installed (Debian: apt-get install wrk); scripts/bootstrap.sh says how")
    env = bench_env()
    procs = []
    try:
        port = free_port(HOST)
        server_cmd = [*coevo_command(), "serve", DEFAULT_ENV, "--port", str(port), "--log-level", "warning"]
        server_cmd += ["--db-url", f"sqlite:///{tmp / 'default.db'}"]
        ours = start_server(pinned(server_cmd, SERVER_CORE), port, env, tmp / "default.log")
        procs.append(ours)
        ids = tmp / "sessions.txt"
        log(f"opening {args.wrk_sessions} {DEFAULT_ENV} sessions")
        sample = asyncio.run(_open_sessions(port, args.wrk_sessions, ids))
        (tmp / "sample.json").write_text(json.dumps(sample))
        fake = tmp / "fake-sessions.txt"
        fake.write_text("".join(f"s{i:031d}\n" for i in range(args.wrk_sessions)))
        bare_port = free_port(HOST)
        bare_cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--serve-bare",
            str(bare_port),
            str(tmp / "sample.json"),
        ]
        bare = start_server(pinned(bare_cmd, SERVER_CORE), bare_port, env, tmp / "bare.log")
        procs.append(bare)
        _wrk(bare_port, fake, args.warmup_seconds, args)
        _fresh_episodes(port, ids)
        _wrk(port, ids, args.warmup_seconds, args)
        runs: dict[str, list[WrkRun]] = {"bare": [], "default": []}
        cpu = {"bare": 0.0, "default": 0.0}
        for round_ in range(args.wrk_rounds):
            for name, proc, p, sids in (("bare", bare, bare_port, fake), ("default", ours, port, ids)):
                if name == "default":
                    _fresh_episodes(port, ids)
                cpu0 = cpu_seconds(proc.pid)
                run = _wrk(p, sids, args.wrk_seconds, args)
                cpu[name] += cpu_seconds(proc.pid) - cpu0
                runs[name].append(run)
                log(
                    f"round {round_ + 1} {name}: {run.per_s:.0f} steps/s, p50 {run.p50_ms:.2f} ms, p99 {run.p99_ms:.2f} ms"
                )
        layers: dict[str, float] | None = None
        hot: list[tuple[str, float]] = []
        if py_spy_path() is not None:
            folded = (args.profile_out or tmp) / "default-step.folded"
            _fresh_episodes(port, ids)
            cpu0 = cpu_seconds(ours.pid)
            with ThreadPoolExecutor(1) as pool:
                spying = pool.submit(record, ours.pid, args.wrk_seconds, folded)
                run = _wrk(port, ids, args.wrk_seconds + 1, args)
                spying.result()
            cpu_us = (cpu_seconds(ours.pid) - cpu0) / run.requests * 1e6
            layers = {layer: round(share * cpu_us, 1) for layer, share in shares(folded).items()}
            hot = top_frames(folded, 40)
    finally:
        for proc in procs:
            stop_server(proc)

    def total(name: str) -> tuple[int, float]:
        return sum(r.requests for r in runs[name]), sum(r.seconds for r in runs[name])

    (bare_n, bare_s), (our_n, our_s) = total("bare"), total("default")
    out: dict[str, Any] = {
        "default_single_ratio": round((our_n / our_s) / (bare_n / bare_s), 3),
        "default_steps_per_s": round(our_n / our_s, 1),
        "bare_steps_per_s": round(bare_n / bare_s, 1),
        # wrk's, at `connections`, the median over rounds
        "p50_ms": round(sorted(r.p50_ms for r in runs["default"])[len(runs["default"]) // 2], 3),
        "p99_ms": round(sorted(r.p99_ms for r in runs["default"])[len(runs["default"]) // 2], 3),
        "bare_p50_ms": round(sorted(r.p50_ms for r in runs["bare"])[len(runs["bare"]) // 2], 3),
        "bare_p99_ms": round(sorted(r.p99_ms for r in runs["bare"])[len(runs["bare"]) // 2], 3),
        "default_cpu_us_per_step": round(cpu["default"] / our_n * 1e6, 1),
        "bare_cpu_us_per_step": round(cpu["bare"] / bare_n * 1e6, 1),
        # The server's own cost, independent of how much of its core it got on a loaded machine.
        "default_cpu_ratio": round((cpu["bare"] / bare_n) / (cpu["default"] / our_n), 3),
        "default_cpu_us_per_layer": layers,
        "default_env": DEFAULT_ENV,
        "default_sessions": args.wrk_sessions,
        "connections": args.connections,
        "wrk_rounds": args.wrk_rounds,
        "wrk_seconds": args.wrk_seconds,
        # wrk's socket errors (timeouts, mostly: requests over 2 s on an overloaded machine)
        "socket_errors": {name: sum(r.socket_errors for r in rs) for name, rs in runs.items()},
        "default_per_round": [round(r.per_s, 1) for r in runs["default"]],
        "bare_per_round": [round(r.per_s, 1) for r in runs["bare"]],
    }
    if args.profile_out is not None and hot:
        summary = "\n".join(f"{share * 100:5.1f}%  {frame}" for frame, share in hot)
        (args.profile_out / "default-step-top.txt").write_text(summary + "\n")
    return out


# ---------------------------------------------------------------------------------- cores
def measure_scale(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """One env past one core: one default server (pinned to core 0) against two (cores 0 and
    1) on one store, each two with half the connections; wrk unpinned, sharing the cores."""
    env = bench_env()
    db = f"sqlite:///{tmp / 'scale.db'}"
    procs = []
    try:
        servers: list[tuple[int, Path]] = []
        for core in (0, 1):
            port = free_port(HOST)
            cmd = [
                *coevo_command(),
                "serve",
                DEFAULT_ENV,
                "--port",
                str(port),
                "--log-level",
                "warning",
                "--db-url",
                db,
            ]
            procs.append(start_server(pinned(cmd, core), port, env, tmp / f"scale-{core}.log"))
            ids = tmp / f"scale-{core}.txt"
            asyncio.run(_open_sessions(port, args.wrk_sessions // 2, ids))
            servers.append((port, ids))

        def load(targets: list[tuple[int, Path]], seconds: float) -> float:
            connections = args.connections // len(targets)
            with ThreadPoolExecutor(len(targets)) as pool:
                runs = list(
                    pool.map(
                        lambda t: run_steps(
                            t[0], t[1], seconds=seconds, connections=connections, core=None, offset=_sent.get(t[1], 0)
                        ),
                        targets,
                    )
                )
            for (_, ids), run in zip(targets, runs, strict=True):
                _sent[ids] = _sent.get(ids, 0) + run.requests
            return sum(run.per_s for run in runs)

        load(servers, args.warmup_seconds)
        one, two = [], []
        for _ in range(args.wrk_rounds):
            one.append(load(servers[:1], args.wrk_seconds))
            two.append(load(servers, args.wrk_seconds))
    finally:
        for proc in procs:
            stop_server(proc)
    return {
        "one_process_steps_per_s": round(sum(one) / len(one), 1),
        "two_processes_steps_per_s": round(sum(two) / len(two), 1),
        "two_over_one": round(sum(two) / sum(one), 3),
    }


# ---------------------------------------------------------------------------------- main
def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="coevo-bench-") as tmp:
        if args.scale:
            return {"scale": measure_scale(args, Path(tmp)), **_load_note()}
        default = measure_default(args, Path(tmp))
    load = _load_note()
    if args.only_default:
        return {**default, **load, "targets": {"default_single_ratio": 0.6}}
    return {**run_fixture(args), **default, **load}


def _load_note() -> dict[str, Any]:
    """The machine's load while this ran: figures from a shared machine are noisy, ratios less so."""
    with open("/proc/loadavg") as f:
        one, five = f.read().split()[:2]
    return {"load_avg_1m": float(one), "load_avg_5m": float(five), "cpus": os.cpu_count()}


def run_fixture(args: argparse.Namespace) -> dict[str, Any]:
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
        "fixture_p50_ms": round(single["p50_ms"], 3),
        "fixture_p99_ms": round(single["p99_ms"], 3),
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
        "targets": {"single_ratio": 0.6, "default_single_ratio": 0.6, "batch_ratio": 20, "idle_session_kb": 64},
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
    parser.add_argument("--wrk-sessions", type=int, default=1024, help="live sessions of the default server")
    parser.add_argument("--connections", type=int, default=64, help="wrk connections")
    parser.add_argument("--wrk-seconds", type=float, default=6.0, help="seconds per wrk run")
    parser.add_argument("--wrk-rounds", type=int, default=3, help="interleaved wrk rounds (bare, default)")
    parser.add_argument("--warmup-seconds", type=float, default=2.0, help="unmeasured wrk run first, each server")
    parser.add_argument("--only-default", action="store_true", help="only the default-server comparison")
    parser.add_argument("--scale", action="store_true", help="only one server process against two (cores 0, 1)")
    parser.add_argument("--profile-out", type=Path, help="keep py-spy's samples and top frames here")
    parser.add_argument(
        "--check", action="store_true", help=f"exit 1 when default_single_ratio < {CHECK_RATIO} (a regression)"
    )
    parser.add_argument("--serve-ceiling", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--serve-bare", nargs=2, metavar=("PORT", "SAMPLE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_ceiling:
        serve_ceiling(args.serve_ceiling)
        return
    if args.serve_bare:
        serve_bare(int(args.serve_bare[0]), args.serve_bare[1])
        return
    if args.profile_out is not None:
        args.profile_out.mkdir(parents=True, exist_ok=True)
    result = run(args)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>28}: {value}")
    if args.check and not args.scale and result["default_single_ratio"] < CHECK_RATIO:
        print(
            f"FAIL: default_single_ratio {result['default_single_ratio']} < {CHECK_RATIO}: the default server's "
            "step path has regressed against bare FastAPI (bench/results/server.md has the history)",
            file=sys.stderr,
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
