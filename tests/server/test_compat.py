"""AgentGym clients run unchanged: the call sequences of their ALFWorld-style (`id`) and
WebShop-style (`env_idx`) env clients, with the request and response fields they use."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.server.conftest import serve


def _index_of(c: TestClient, task_id: str) -> int:
    """AgentGym task index: position in the catalogue, splits in the env's order."""
    info = c.get("/info").json()
    base = 0
    for split, count in info["splits"].items():
        tasks = c.get("/tasks", params={"split": split, "limit": count}).json()["tasks"]
        ids = [t["task_id"] for t in tasks]
        if task_id in ids:
            return base + ids.index(task_id)
        base += count
    raise AssertionError(task_id)


def test_id_style_client_flow(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url) as c:
        # AlfWorldEnvClient: POST /create, env_id = ok["id"]
        created = c.post("/create")
        assert created.status_code == 200
        env_id = created.json()["id"]
        assert isinstance(env_id, str) and len(env_id) >= 32
        # reset(game) posts {"id", "game", "world_type"}; index 201 is test-1 (200 train tasks first)
        assert _index_of(c, "test-1") == 201
        r = c.post("/reset", json={"id": env_id, "game": 201, "world_type": "Text"})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["id"] == env_id and body["task_id"] == "test-1"
        assert "observation" in body and isinstance(body["available_actions"], list)
        # TextCraft/BabyAI send data_idx instead of game
        assert c.post("/reset", json={"id": env_id, "data_idx": 201}).json()["task_id"] == "test-1"
        # step posts {"id", "action"} and reads observation / reward / done
        target = (1 * 37 + 7) % 100 + 1
        s = c.post("/step", json={"id": env_id, "action": "guess 1"}).json()
        assert s["observation"] == "higher" and s["reward"] == 0.0 and s["done"] is False
        assert c.get("/observation", params={"id": env_id}).json() == "higher"
        assert c.get("/available_actions", params={"id": env_id}).json() == []
        s = c.post("/step", json={"id": env_id, "action": f"guess {target}"}).json()
        assert s["done"] is True and s["reward"] == 1.0
        detail = c.get("/detail", params={"id": env_id}).json()
        assert detail["done"] is True and detail["steps"] == 2 and detail["task_id"] == "test-1"
        # The same session through our native API.
        assert c.get(f"/sessions/{env_id}").json()["steps"] == 2
        assert c.post("/close", json={"id": env_id}).json() == {"closed": True}
        gone = c.get("/observation", params={"id": env_id})
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "session_not_found"


def test_env_idx_style_client_flow(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url, agentgym_style="env_idx") as c:
        # WebshopEnvClient: env_id = ok.json() (a bare id), then env_idx in every call
        env_id = c.post("/create").json()
        assert isinstance(env_id, str)
        r = c.post("/reset", json={"env_idx": env_id, "session_id": 3})
        assert r.status_code == 200
        obs, extra = r.json()
        assert extra is None and obs == c.get("/observation", params={"env_idx": env_id}).json()
        s = c.post("/step", json={"env_idx": env_id, "action": "guess 100"}).json()
        assert set(s) == {"state", "reward", "done", "info"} and s["state"] == "lower"
        aa = c.get("/available_actions", params={"env_idx": env_id}).json()
        assert aa == {"has_search_bar": False, "clickables": []}
        assert c.post("/close", json={"env_idx": env_id}).json() == {"closed": True}


def test_compat_errors_keep_their_status() -> None:
    with serve() as c:
        assert c.post("/step", json={"action": "guess 1"}).status_code == 422  # no id at all
        r = c.post("/step", json={"id": 12, "action": "guess 1"})  # AgentGym's integer ids
        assert r.status_code == 404 and r.json()["error"]["code"] == "session_not_found"
        env_id = c.post("/create").json()["id"]
        r = c.post("/reset", json={"id": env_id, "game": 10_000})
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_task"
        assert c.get("/detail").status_code == 422
        assert c.get("/").json() == "This is environment guess."


def test_agentgym_sessions_are_native_sessions(sqlite_url: str) -> None:
    """step, fork, expert and DELETE take the id an AgentGym /create returned, and the AgentGym
    routes take a native session's id."""
    with serve(db_url=sqlite_url) as c:
        env_id = c.post("/create").json()["id"]
        assert c.post("/reset", json={"id": env_id, "game": 201}).json()["task_id"] == "test-1"
        expert = c.get(f"/sessions/{env_id}/expert")
        assert expert.status_code == 200 and expert.json()["action"].startswith("guess ")
        s = c.post(f"/sessions/{env_id}/step", json={"action": "guess 1"})
        assert s.status_code == 200 and s.json()["observation"] == "higher"
        fork = c.post(f"/sessions/{env_id}/fork")
        assert fork.status_code == 201
        child = fork.json()["session_id"]
        assert c.get(f"/sessions/{child}").json()["steps"] == 1
        assert c.post("/step", json={"id": child, "action": "guess 100"}).json()["observation"] == "lower"
        assert c.get("/detail", params={"id": env_id}).json()["steps"] == 1  # the parent is its own
        assert c.delete(f"/sessions/{env_id}").status_code == 200
        gone = c.post("/step", json={"id": env_id, "action": "guess 2"})
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "session_not_found"
        native = c.post("/sessions", json={"task_id": "test-1"}).json()["session_id"]
        assert c.post("/step", json={"id": native, "action": "guess 1"}).json()["observation"] == "higher"
        assert c.post("/close", json={"id": child}).json() == {"closed": True}


def test_env_idx_item_style_client_flow(sqlite_url: str) -> None:
    """AgentGym's search-server shapes: the session in env_idx, the item index in id."""
    with serve(db_url=sqlite_url, agentgym_style="env_idx_item") as c:
        env_id = c.post("/create", json={"id": 201}).json()  # item 201 is test-1 (200 train first)
        assert isinstance(env_id, str)
        assert c.get(f"/sessions/{env_id}").json()["task_id"] == "test-1"
        obs = c.post("/reset", json={"env_idx": env_id, "id": 3})
        assert obs.status_code == 200 and obs.json() == c.get("/observation", params={"env_idx": env_id}).json()
        assert c.get(f"/sessions/{env_id}").json()["task_id"] == "train-3"
        s = c.post("/step", json={"env_idx": env_id, "action": "guess 100"}).json()
        assert s == {"observation": "lower", "reward": 0.0, "done": False, "info": None}
        for bad in ("3", -1, True):
            r = c.post("/reset", json={"env_idx": env_id, "id": bad})
            assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", bad
        r = c.post("/step", json={"id": env_id, "action": "guess 1"})  # `id` never names the session
        assert r.status_code == 422
        assert c.post("/close", json={"env_idx": env_id}).json() is True
