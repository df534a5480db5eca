"""The pieces of bench/server.py's default-server comparison: wrk's report read right (its
figures are the benchmark's), py-spy's stacks put in the right layer, and the wrk script's load
run against a real server: steps and resets only, every one answered 200, sessions never past
their step cap however many runs follow each other."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

from tests.server.live import live_server

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from layers import layer_of  # noqa: E402
from wrk_load import parse, run_steps, wrk_path  # noqa: E402

REPORT = """Running 6s test @ http://127.0.0.1:8642
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    35.28ms   42.23ms 335.93ms   88.67%
  Latency Distribution
     50%  850.00us
     75%   34.92ms
     90%   85.40ms
     99%    1.25s
  19963 requests in 8.02s, 15.44MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 7
Requests/sec:   2490.36
"""


def test_a_wrk_report_is_read_in_milliseconds() -> None:
    run = parse(REPORT)
    assert (run.requests, run.seconds, run.p50_ms, run.p99_ms) == (19963, 8.02, 0.85, 1250.0)
    assert (run.non_2xx, run.socket_errors) == (7, 3)
    assert round(run.per_s) == 2489


def test_a_report_without_latencies_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="latency"):
        parse("  10 requests in 1.00s, 1KB read\n")


@pytest.mark.parametrize(
    ("leaf_first", "layer"),
    [
        (["HotStep.__call__ (server/hot_step.py:80)", "RequestResponseCycle.run_asgi (uvicorn/x.py:1)"], "http"),
        (["EnvService.step (server/service.py:260)", "HotStep.__call__ (server/hot_step.py:80)"], "service"),
        (["AlfWorldEnv._step (envs/alfworld/env.py:330)", "EnvService.step (server/service.py:260)"], "env"),
        (["do_commit (sqlalchemy/engine/default.py:1)", "TrajectoryWriter._run (coevo/store/writer.py:1)"], "store"),
        (["Condition.wait (threading.py:320)", "TrajectoryWriter._run (coevo/store/writer.py:1)"], None),
        (["_worker (concurrent/futures/thread.py:81)", "Thread.run (threading.py:982)"], None),
    ],
)
def test_each_stack_goes_to_its_deepest_layer(leaf_first: list[str], layer: str | None) -> None:
    assert layer_of(";".join(reversed(leaf_first))) == layer


@pytest.mark.skipif(wrk_path() is None, reason="wrk is not installed (Debian: apt-get install wrk)")
def test_the_wrk_script_steps_and_resets_sessions_under_their_cap(tmp_path: Path) -> None:
    with live_server("guess") as url:  # max_steps 12
        port = int(url.rsplit(":", 1)[1])
        sids = [httpx.post(f"{url}/sessions", json={"seed": i}).json()["session_id"] for i in range(4)]
        ids = tmp_path / "ids.txt"
        ids.write_text("\n".join(sids) + "\n")
        sent = 0
        for _ in range(2):  # the second run carries the first's count on (offset)
            run = run_steps(port, ids, seconds=1, connections=2, core=None, action="guess 101", episode=10, offset=sent)
            assert run.requests > 0 and run.non_2xx == 0
            sent += run.requests
        metrics = httpx.get(f"{url}/metrics").text
        assert "coevo_errors_total{" not in metrics  # no 409 after an episode's end, no 404
        steps = [httpx.get(f"{url}/sessions/{sid}").json()["steps"] for sid in sids]
        assert all(s < 12 for s in steps), steps
        # Every session may have just been reset (4 sessions, a reset every 10th visit: a total
        # that is a multiple of 40 leaves them all at 0), so the steps are counted on the server.
        taken = [line for line in metrics.splitlines() if line.startswith("coevo_steps_total{")]
        assert taken and float(taken[0].rsplit(" ", 1)[1]) >= sent * 0.8, taken
