"""Requests an outsider would send, each against an ordinary one in the same run (bench/load.py --attacks).

One `coevo serve alfworld` (the env whose task ids carry generator knobs), recording on SQLite.
Each attack is sent `--attack-repeats` times; per attack the run reports its status, its median
wall time as a ratio to the median of the ordinary request it stands beside (an ordinary create,
`POST /sessions {"task_id": "gen-<n>"}`, an ordinary step, or a full batch of 4096 real
steps over 128 sessions; every repeat new seeds), the server's peak resident memory
above what it had before the request (`rss_peak_mb`) and what it kept after (`rss_kept_mb`).

Per-session memory: three cohorts of `--pinned-sessions` new AgentGym sessions, kept open: a
warm-up cohort without extra fields, one reset with the largest extras the server accepts, and
one without; the difference in resident-memory growth of the last two, per session, is what
one client can pin per session beyond its actions (`pinned_bytes_per_session`;
`session_bytes_plain` is a session's own cost, `cohort_rss_growth_mb` the three growths).
Actions are bounded separately: max_steps x the action cap (`action_bound_bytes`).

Targets: every attack answers 4xx or within the bounds (time ratio <= 10, rss <= 20 MB);
pinned_bytes_per_session <= 64 KB.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from coevo.client.launcher import free_port
from measure import HOST, bench_env, coevo_command, log, rss_mb, start_server, stop_server

MAX_INT64 = 2**63 - 1


@dataclass
class Attack:
    name: str
    method: str
    path: str
    #: JSON text of the body ("{sid}" stands for a live session, "{n}" for the repeat's number,
    #: so that no repeat is served from a cache), or None.
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    #: The ordinary request it is compared with: "create", "step" or "batch" (4096 real steps).
    baseline: str = "create"


def attacks() -> list[Attack]:
    nested = "[" * 100_000 + "]" * 100_000
    small_keys = "{" + ",".join(f'"k{i}":0' for i in range(90_000)) + ',"id":"{sid}"}'
    return [
        Attack("knob max_instances=100000", "POST", "/sessions", '{"task_id": "gen-1?max_instances=100000"}'),
        Attack(
            "knobs at their bounds",
            "POST",
            "/sessions",
            '{"task_id": "gen-{n}?max_instances=10&distractors=100&max_receptacles=100"}',
        ),
        Attack("gen seed 2^63-1", "POST", "/sessions", f'{{"task_id": "gen-{MAX_INT64}"}}'),
        Attack("gen seed 2^63", "POST", "/sessions", f'{{"task_id": "gen-{MAX_INT64 + 1}"}}'),
        Attack("seed 2^63", "POST", "/sessions", f'{{"seed": {MAX_INT64 + 1}}}'),
        Attack("AgentGym index 2^63-1", "POST", "/reset", f'{{"id": "{{sid}}", "game": {MAX_INT64}}}'),
        Attack("tasks page 1000", "GET", "/tasks?limit=1000"),
        Attack("tasks offset 2^63-1", "GET", f"/tasks?offset={MAX_INT64}"),
        Attack(
            "JSON nested 100000 deep", "POST", "/step", '{"id": "{sid}", "action": ' + nested + "}", baseline="step"
        ),
        Attack("AgentGym reset, 0.9 MB of small keys", "POST", "/reset", small_keys),
        Attack("AgentGym create, 0.9 MB of small keys", "POST", "/create", small_keys.replace('"id":"{sid}"', '"x":0')),
        Attack("lone surrogate action", "POST", "/step", '{"id": "{sid}", "action": "\\ud800"}', baseline="step"),
        Attack(
            "action past the cap",
            "POST",
            "/step",
            '{"id": "{sid}", "action": "' + "x" * 900_000 + '"}',
            baseline="step",
        ),
        Attack(
            "batch of 4096 unknown sessions",
            "POST",
            "/batch/step",
            json.dumps({"items": [{"session_id": f"{i:032d}", "action": "look"} for i in range(4096)]}),
            baseline="batch",
        ),
        Attack("60 KB of headers", "GET", "/health", headers={"x-pad": "a" * 60_000}, baseline="step"),
        Attack(
            "1 MB of headers", "GET", "/health", headers={f"x-pad-{i}": "a" * 8000 for i in range(128)}, baseline="step"
        ),
    ]


class PeakRss:
    """The server's peak resident memory while a block runs (polled every 2 ms)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_mb(self.pid))
            time.sleep(0.002)

    def __enter__(self) -> PeakRss:
        self.peak = rss_mb(self.pid)
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_mb(self.pid))


def _send(client: httpx.Client, attack: Attack, sid: str, n: int) -> tuple[int, float]:
    body = None if attack.body is None else attack.body.replace("{sid}", sid).replace("{n}", str(n)).encode()
    headers = {"content-type": "application/json", **attack.headers} if body is not None else attack.headers
    t0 = time.perf_counter()
    try:
        status = client.request(attack.method, attack.path, content=body, headers=headers).status_code
    except httpx.HTTPError as exc:  # a server that hangs up is an answer too
        status = -1
        log(f"  {attack.name}: {type(exc).__name__}")
    return status, time.perf_counter() - t0


def _ordinary(client: httpx.Client, repeats: int) -> tuple[dict[str, float], str]:
    creates, steps = [], []
    sid = ""
    for n in range(repeats):
        t0 = time.perf_counter()
        r = client.post("/sessions", json={"task_id": f"gen-{n}"})
        creates.append(time.perf_counter() - t0)
        sid = r.json()["session_id"]
        t0 = time.perf_counter()
        client.post(f"/sessions/{sid}/step", json={"action": "look"})
        steps.append(time.perf_counter() - t0)
    batches = []
    for _ in range(repeats):  # a full batch of real steps: 4096 items over 128 fresh sessions
        ids = [client.post("/sessions", json={"task_id": f"gen-{2000 + i}"}).json()["session_id"] for i in range(128)]
        body = {"items": [{"session_id": ids[i % 128], "action": "look"} for i in range(4096)]}
        t0 = time.perf_counter()
        client.post("/batch/step", json=body)
        batches.append(time.perf_counter() - t0)
        for one in ids:
            client.delete(f"/sessions/{one}")
    return {
        "create": statistics.median(creates),
        "step": statistics.median(steps),
        "batch": statistics.median(batches),
    }, sid


def _pinned(client: httpx.Client, pid: int, sessions: int, max_extra: int) -> dict[str, Any]:
    """Resident bytes per session of the largest accepted AgentGym extras, beyond none: three
    cohorts of new sessions, kept open: a first without extras warms the server up (its growth
    holds one-time allocations and is only reported), then one with the largest extras, then one
    without; the extras' cost is the difference of the last two, per session."""
    filler = "x" * (max_extra - len('{"world_type":""}'))

    def cohort(extra: dict[str, str]) -> tuple[float, list[str]]:
        before = rss_mb(pid)
        ids = [client.post("/create", json={}).json()["id"] for _ in range(sessions)]
        for sid in ids:
            r = client.post("/reset", json={"id": sid, "game": 0, **extra})
            assert r.status_code == 200, r.text
        return rss_mb(pid) - before, ids

    plain_a, ids_a = cohort({})
    extras, ids_b = cohort({"world_type": filler})
    plain_b, ids_c = cohort({})
    for sid in [*ids_a, *ids_b, *ids_c]:
        client.post("/close", json={"id": sid})
    extra_mb = extras - plain_b
    return {
        "pinned_sessions": sessions,
        "session_bytes_plain": round(plain_b * 1024 * 1024 / sessions),
        "pinned_bytes_per_session": max(0, round(extra_mb * 1024 * 1024 / sessions)),
        "cohort_rss_growth_mb": [round(plain_a, 2), round(extras, 2), round(plain_b, 2)],
        "extra_fields_cap_bytes": max_extra,
    }


def run_attacks(repeats: int, pinned_sessions: int) -> dict[str, Any]:
    from coevo.server.agentgym_extras import MAX_EXTRA_BYTES

    with tempfile.TemporaryDirectory(prefix="coevo-attacks-") as tmp_name:
        tmp = Path(tmp_name)
        port = free_port(HOST)
        cmd = [*coevo_command(), "serve", "alfworld", "--port", str(port), "--db-url", f"sqlite:///{tmp / 'a.db'}"]
        cmd += ["--log-level", "warning"]
        proc = start_server(cmd, port, bench_env(), tmp / "server.log")
        try:
            with httpx.Client(base_url=f"http://{HOST}:{port}", timeout=120) as client:
                client.get("/health")
                # First, on a fresh server: memory the attacks freed would hide what sessions take.
                pinned = _pinned(client, proc.pid, pinned_sessions, MAX_EXTRA_BYTES)
                baseline, sid = _ordinary(client, repeats)
                log(f"ordinary requests: {baseline}")
                rows = []
                for attack in attacks():
                    times, statuses = [], []
                    rss_before = rss_mb(proc.pid)
                    with PeakRss(proc.pid) as peak:
                        for n in range(repeats):
                            status, seconds = _send(client, attack, sid, 1000 + n)
                            statuses.append(status)
                            times.append(seconds)
                    kept = rss_mb(proc.pid) - rss_before
                    row = {
                        "attack": attack.name,
                        "status": sorted(set(statuses)),
                        "median_s": round(statistics.median(times), 5),
                        "baseline": attack.baseline,
                        "time_ratio": round(statistics.median(times) / baseline[attack.baseline], 2),
                        "rss_peak_mb": round(peak.peak - rss_before, 1),
                        "rss_kept_mb": round(kept, 1),
                    }
                    row["within_targets"] = row["time_ratio"] <= 10 and row["rss_peak_mb"] <= 20
                    log(f"  {row}")
                    rows.append(row)
                    if client.get("/health").status_code != 200:
                        raise RuntimeError(f"the server is down after {attack.name}")
                info = client.get("/info").json()
        finally:
            stop_server(proc)
    from coevo.config import ServerConfig

    action_cap = ServerConfig().max_action_bytes
    return {
        "env": "alfworld",
        "repeats": repeats,
        "ordinary_create_s": round(baseline["create"], 5),
        "ordinary_step_s": round(baseline["step"], 5),
        "ordinary_batch_s": round(baseline["batch"], 5),
        "attacks": rows,
        "attacks_within_targets": sum(r["within_targets"] for r in rows),
        "attacks_total": len(rows),
        **pinned,
        "max_steps": info["max_steps"],
        "action_cap_bytes": action_cap,
        "action_bound_bytes": info["max_steps"] * action_cap,
        "targets": {"time_ratio": 10, "rss_peak_mb": 20, "pinned_bytes_per_session": 64 * 1024},
    }
