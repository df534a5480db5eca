"""Per-task difficulty on SQLite and PostgreSQL: the server counts every episode the env judged
per task and policy tag in the store, GET /tasks filters a split by the estimated success rate
(with its Wilson interval), the counts survive a restart and two servers on one store share
them, and bad filters get 422 as documented."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from coevo.intervals import wilson_interval
from tests.server.conftest import serve

FAULTY = "tests.faulty_env:FaultyGuessEnv"
#: Targets of the guess env: train-0 is 1, train-1 is 38, train-3 is 12.
WIN = {"train-0": "guess 1", "train-1": "guess 38", "train-3": "guess 12"}


def _episode(c: TestClient, task: str, action: str, policy: str | None = None) -> None:
    body: dict[str, Any] = {"task_id": task} | ({"policy": policy} if policy else {})
    sid = c.post("/sessions", json=body).json()["session_id"]
    assert c.post(f"/sessions/{sid}/step", json={"action": action}).json()["done"]
    assert c.delete(f"/sessions/{sid}").status_code == 200


def _listing(c: TestClient, **params: Any) -> dict[str, Any]:
    r = c.get("/tasks", params={"split": "train", **params})
    assert r.status_code == 200, r.text
    return r.json()


def _ids(page: dict[str, Any]) -> list[str]:
    return [t["task_id"] for t in page["tasks"]]


def _play_history(c: TestClient) -> None:
    for _ in range(3):
        _episode(c, "train-0", WIN["train-0"], "a")
    _episode(c, "train-1", "give up", "a")
    _episode(c, "train-1", "give up", "a")
    _episode(c, "train-1", WIN["train-1"], "a")
    _episode(c, "train-2", "give up", "a")
    _episode(c, "train-0", "give up", "b")
    _episode(c, "train-3", WIN["train-3"])  # untagged
    # Episodes without a verdict never count: one left unfinished, one whose env crashed.
    left = c.post("/sessions", json={"task_id": "train-4", "policy": "a"}).json()["session_id"]
    c.delete(f"/sessions/{left}")
    crashed = c.post("/sessions", json={"task_id": "train-4", "policy": "a"}).json()["session_id"]
    assert c.post(f"/sessions/{crashed}/step", json={"action": "crash"}).status_code == 500
    c.delete(f"/sessions/{crashed}")


def test_difficulty_filters_by_policy_rate_and_episodes(db_url: str) -> None:
    with serve(FAULTY, db_url=db_url, raise_server_exceptions=False) as c:
        _play_history(c)
        a = _listing(c, policy="a")
        assert _ids(a) == ["train-0", "train-1", "train-2"] and a["total"] == 3
        stats = {t["task_id"]: t["stats"] for t in a["tasks"]}
        assert stats["train-1"] == {
            "policy": "a", "episodes": 3, "successes": 1, "success_rate": pytest.approx(1 / 3),
            "ci95_low": pytest.approx(wilson_interval(1, 3)[0]), "ci95_high": pytest.approx(wilson_interval(1, 3)[1]),
        }  # fmt: skip
        assert (stats["train-0"]["successes"], stats["train-2"]["episodes"]) == (3, 1)
        assert _ids(_listing(c, policy="a", p_min=0.2, p_max=0.5)) == ["train-1"]
        assert _ids(_listing(c, policy="a", min_episodes=2)) == ["train-0", "train-1"]
        assert _ids(_listing(c, policy="a", p_max=0.0)) == ["train-2"]
        page = _listing(c, policy="a", offset=1, limit=1)
        assert (_ids(page), page["total"], page["offset"]) == (["train-1"], 3, 1)
        # Every tag pooled: train-0 has a's three wins and b's loss; the untagged episode counts.
        pooled = {t["task_id"]: t["stats"] for t in _listing(c, min_episodes=1)["tasks"]}
        assert (pooled["train-0"]["episodes"], pooled["train-0"]["successes"]) == (4, 3)
        assert pooled["train-0"]["policy"] is None and "train-3" in pooled and "train-4" not in pooled
        assert _listing(c, policy="nobody") == {"split": "train", "total": 0, "offset": 0, "tasks": []}
        assert "stats" not in c.get("/tasks", params={"split": "train", "limit": 1}).json()["tasks"][0]
    # A restarted server (and a second one on the same store) sees the same counts and adds to them.
    with serve(FAULTY, db_url=db_url) as first, serve(FAULTY, db_url=db_url) as second:
        assert _listing(first, policy="a")["tasks"][1]["stats"]["episodes"] == 3
        _episode(first, "train-1", WIN["train-1"], "a")
        _episode(second, "train-1", WIN["train-1"], "a")
        for server in (first, second):
            found = _listing(server, policy="a", p_min=0.5)["tasks"]
            assert [(t["task_id"], t["stats"]["episodes"], t["stats"]["successes"]) for t in found] == [
                ("train-0", 3, 3),
                ("train-1", 5, 3),
            ]


@pytest.mark.parametrize(
    "params",
    [{"p_min": 0.8, "p_max": 0.2}, {"p_min": 1.5}, {"p_max": -0.1}, {"p_min": "abc"}, {"min_episodes": 0},
     {"policy": "x" * 257}],
)  # fmt: skip
def test_bad_filters_are_refused(sqlite_url: str, params: dict[str, Any]) -> None:
    with serve(db_url=sqlite_url) as c:
        r = c.get("/tasks", params=params)
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", r.text


def test_filters_need_a_store_and_a_known_split(sqlite_url: str) -> None:
    with serve() as c:  # record off: no statistics to filter by
        r = c.get("/tasks", params={"policy": "a"})
        assert r.status_code == 422 and "no store" in r.json()["error"]["message"]
    with serve(db_url=sqlite_url) as c:
        r = c.get("/tasks", params={"split": "nope", "p_min": 0.5})
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_split"
