"""BIRD-SQL through the server: AgentGym's SQLGym client's recorded session (its shapes), the
native routes and fork, and a runaway query that holds no other session up."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx

from tests.server.conftest import serve
from tests.server.live import live_server

FIXTURE = json.loads(
    (Path(__file__).parents[1] / "server" / "fixtures" / "agentgym_clients.json").read_text(encoding="utf-8")
)
RECORDED = FIXTURE["servers"]["birdsql"]


def _agentgym(by: str = "agentgym") -> list[dict[str, Any]]:
    return [ex for ex in RECORDED["exchanges"] if ex["by"] == by]


def test_sqlgym_client_answers_have_sqlgym_server_shapes() -> None:
    """AgentGym's `SqlGymEnvClient` (tests/server/test_agentgym_clients.py replays it): a bare
    integer-like id from /create, `[observation, null]` from /reset, `{state, reward, done,
    info}` from /step with `info.ground_truth`, the reset text from /observation."""
    assert _agentgym("raw")[0]["answer"] == "ok"
    exchanges = _agentgym()
    assert all(ex["status"] == 200 for ex in exchanges)
    assert exchanges[0]["path"] == "/create" and exchanges[0]["answer"] == "<session>"
    resets = [ex for ex in exchanges if ex["path"] == "/reset"]
    assert resets[0]["body"] == {"item_id": 9428, "env_idx": "<session>"}
    observation, extra = resets[0]["answer"]
    assert extra is None and " contains tables such as " in observation and "\n\n" in observation
    observes = [ex for ex in exchanges if ex["path"] == "/observation"]
    assert all(ex["answer"] == observation for ex in observes)  # SQLGym repeats the reset text
    steps = [ex for ex in exchanges if ex["path"] == "/step"]
    for ex in steps:
        assert set(ex["answer"]) == {"state", "reward", "done", "info"} and ex["answer"]["done"] is True
        assert "```" not in ex["body"]["action"]  # the client sends the fenced SQL only
        assert len(ex["answer"]["state"]) <= 103
    solved, again, refused_write, long_rows, two = (ex["answer"] for ex in steps)
    assert solved["reward"] == 1.0 and solved["info"]["ground_truth"] == steps[0]["body"]["action"]
    assert again == {**again, "state": "[(300,)]", "reward": 0.0}  # no end state: it runs again
    assert refused_write["state"].startswith("Refused: DELETE") and refused_write["reward"] == 0.0
    assert long_rows["state"].endswith("...") and len(long_rows["state"]) == 103
    assert two["state"].startswith("Refused: more than one statement")
    fork = next(ex for ex in RECORDED["exchanges"] if ex["path"].endswith("/fork"))
    assert fork["status"] == 201 and fork["answer"]["observation"] == "[(300,)]"


def test_native_session_and_batch_step() -> None:
    with serve("birdsql", env_options=RECORDED["env_options"]) as c:
        s = c.post("/sessions", json={"task_id": "dev-0"}).json()
        assert s["observation"].startswith("Database library (SQLite)") and "Evidence: " in s["observation"]
        expert = c.get(f"/sessions/{s['session_id']}/expert").json()["action"]
        done = c.post(f"/sessions/{s['session_id']}/step", json={"action": expert}).json()
        assert (done["reward"], done["done"], done["info"]["success"]) == (1.0, True, True)
        assert c.post(f"/sessions/{s['session_id']}/step", json={"action": expert}).status_code == 409
        bad = c.post("/sessions", json={"task_id": "dev-1"}).json()["session_id"]
        r = c.post(f"/sessions/{bad}/step", json={"action": "DROP TABLE book"})
        assert r.status_code == 200 and r.json()["observation"].startswith("Refused: ")


def test_a_runaway_join_holds_no_other_session_up() -> None:
    """One session's runaway join runs to its time limit on the env thread pool; meanwhile other
    sessions are created, stepped and scored. The check is of order, not of time: every other
    episode finishes while the runaway request is still in flight, and it ends stopped."""
    options = {**RECORDED["env_options"], "time_limit": 6}
    runaway = "SELECT COUNT(*) FROM loan AS a, loan AS b, loan AS c, loan AS d, loan AS e"
    with live_server("birdsql", env_options=options) as base, httpx.Client(base_url=base, timeout=120) as c:
        slow = c.post("/sessions", json={"task_id": "dev-0"}).json()["session_id"]
        result: dict[str, Any] = {}
        started = threading.Event()

        def run_away() -> None:
            started.set()
            result.update(c.post(f"/sessions/{slow}/step", json={"action": runaway}).json())

        thread = threading.Thread(target=run_away)
        thread.start()
        started.wait()
        for task_id in ("dev-1", "dev-2", "train-0", "train-1"):
            sid = c.post("/sessions", json={"task_id": task_id}).json()["session_id"]
            action = c.get(f"/sessions/{sid}/expert").json()["action"]
            assert c.post(f"/sessions/{sid}/step", json={"action": action}).json()["reward"] == 1.0
        assert thread.is_alive() and not result  # the runaway is still running
        thread.join()
    assert result["info"]["timed_out"] is True and result["reward"] == 0.0
    assert "time limit of 6 s" in result["observation"]


def test_an_action_near_the_64_kib_limit_runs_and_one_over_it_is_refused() -> None:
    values = ", ".join(str(i) for i in range(10_800))
    near = f"SELECT COUNT(*) FROM book WHERE book_id IN ({values})"
    with serve("birdsql", env_options=RECORDED["env_options"]) as c:
        sid = c.post("/sessions", json={"task_id": "dev-0"}).json()["session_id"]
        r = c.post(f"/sessions/{sid}/step", json={"action": near})
        assert r.status_code == 200 and r.json()["observation"] == "[(300,)]"
        sid = c.post("/sessions", json={"task_id": "dev-0"}).json()["session_id"]
        over = near + " OR 1" * 2000
        r = c.post(f"/sessions/{sid}/step", json={"action": over})
        assert r.status_code == 413 and r.json()["error"]["code"]
