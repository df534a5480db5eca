"""The WebShop env behind the real server: the expert over HTTP, and the default data directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from coevo.config import ServerConfig
from coevo.envs.webshop import tasks
from coevo.server import create_app


def _expert_episode(client: TestClient, task_id: str) -> float:
    r = client.post("/sessions", json={"task_id": task_id})
    assert r.status_code == 201, r.text
    sid = r.json()["session_id"]
    reward, done = 0.0, False
    while not done:
        action = client.get(f"/sessions/{sid}/expert").json()["action"]
        if action is None:
            break
        step = client.post(f"/sessions/{sid}/step", json={"action": action}).json()
        reward, done = step["reward"], step["done"] or step["truncated"]
    client.delete(f"/sessions/{sid}")
    return reward


def test_expert_scores_one_over_http(generated_dir: Path) -> None:
    app = create_app("webshop", env_options={"data_dir": str(generated_dir)}, config=ServerConfig(record=False))
    with TestClient(app) as client:
        info = client.get("/info").json()
        assert info["env"] == "webshop" and info["splits"]["test"] == 500 and info["max_steps"] == 15
        tasks = client.get("/tasks", params={"split": "test", "limit": 120}).json()
        ids = [t["task_id"] for t in tasks["tasks"]]
        assert len(ids) == 120
        rewards = [_expert_episode(client, t) for t in ids]
    assert sum(r == 1.0 for r in rewards) / len(rewards) >= 0.99


def test_observation_and_actions_over_http(generated_dir: Path) -> None:
    app = create_app("webshop", env_options={"data_dir": str(generated_dir)}, config=ServerConfig(record=False))
    with TestClient(app) as client:
        created = client.post("/sessions", json={"task_id": "3"}).json()
        assert created["observation"].startswith("WebShop [SEP] Instruction: [SEP] Find me ")
        assert created["info"]["available_actions"] == {"has_search_bar": True, "clickables": ["search"]}
        step = client.post(f"/sessions/{created['session_id']}/step", json={"action": "click[nothing]"}).json()
        assert step["observation"] == created["observation"] and step["reward"] == 0.0 and not step["done"]


def test_default_data_directory_is_built_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COEVO_CACHE_DIR", str(tmp_path))
    calls: list[Path] = []
    real_build = tasks.build

    def counting_build(out, **kw):  # type: ignore[no-untyped-def]
        calls.append(Path(out))
        return real_build(out, **kw)

    monkeypatch.setattr(tasks, "build", counting_build)
    first = tasks.ensure_built(100, 5)
    again = tasks.ensure_built(100, 5)
    assert first == again == tmp_path / "webshop" / "100-5" and len(calls) == 1
    assert (first / "manifest.json").is_file() and not list(first.parent.glob(".100-5.building-*"))


def test_cli_build(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from coevo.cli import app
    import coevo.cli.webshop_cmd  # noqa: F401  (registers the command)

    result = CliRunner().invoke(
        app, ["webshop", "build", "--products", "120", "--out", str(tmp_path / "ws"), "--seed", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "120 products" in result.output and (tmp_path / "ws" / "index" / "vocab.index.json").is_file()
    bad = CliRunner().invoke(app, ["webshop", "build", "--products", "50", "--out", str(tmp_path / "small")])
    assert bad.exit_code != 0 and not (tmp_path / "small").exists()


def test_agentgym_routes_answer_as_agentgyms_shop_server(generated_dir: Path) -> None:
    """/available_actions is WebShop's get_available_actions() (the start page's search button
    included: AgentGym's server documents {'has_search_bar': True, 'clickables': ['search']}),
    and an AgentGym session has no step cap, as AgentGym's server has none."""
    app = create_app("webshop", env_options={"data_dir": str(generated_dir)}, config=ServerConfig(record=False))
    with TestClient(app) as client:
        sid = client.post("/create").json()
        observation, extra = client.post("/reset", json={"env_idx": sid, "session_id": 3}).json()
        assert observation.startswith("WebShop [SEP] Instruction: [SEP] ") and extra is None
        start = client.get("/available_actions", params={"env_idx": sid}).json()
        assert start == {"has_search_bar": True, "clickables": ["search"]}
        native = client.post("/sessions", json={"task_id": "3"}).json()
        action = client.get(f"/sessions/{native['session_id']}/expert").json()["action"]
        assert action.startswith("search[")
        mine = client.post(f"/sessions/{native['session_id']}/step", json={"action": action}).json()
        theirs = client.post("/step", json={"env_idx": sid, "action": action}).json()
        assert theirs["state"] == mine["observation"]
        results = client.get("/available_actions", params={"env_idx": sid}).json()
        assert results == mine["info"]["available_actions"]
        assert results["has_search_bar"] is False and results["clickables"][:2] == ["back to search", "next >"]
        assert len(results["clickables"]) == 12  # the buttons and the page's 10 ASINs
        for _ in range(30):  # past our native cap of 15
            step = client.post("/step", json={"env_idx": sid, "action": "click[nothing here]"}).json()
            assert step["done"] is False and step["state"] == theirs["state"]
