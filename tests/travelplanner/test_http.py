"""TravelPlanner behind the real server: the expert over HTTP in both modes, and `coevo eval-plans`."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from coevo.config import ServerConfig
from coevo.envs.travelplanner.database import open_sandbox
from coevo.envs.travelplanner.plans import render_text
from coevo.envs.travelplanner.tasks import generate_task
from coevo.server import create_app


def _expert_episode(client: TestClient, task_id: str) -> tuple[float, dict]:
    created = client.post("/sessions", json={"task_id": task_id})
    assert created.status_code == 201, created.text
    sid = created.json()["session_id"]
    step: dict = {}
    while True:
        action = client.get(f"/sessions/{sid}/expert").json()["action"]
        assert action is not None
        step = client.post(f"/sessions/{sid}/step", json={"action": action}).json()
        if step["done"] or step["truncated"]:
            break
    client.delete(f"/sessions/{sid}")
    return step["reward"], step["info"]


def test_expert_passes_across_levels_and_days_over_http() -> None:
    app = create_app("travelplanner", config=ServerConfig(record=False))
    with TestClient(app) as client:
        info = client.get("/info").json()
        assert info["env"] == "travelplanner" and info["max_steps"] == 30
        assert info["splits"] == {"train": 45, "validation": 180, "test": 1000}
        listed = client.get("/tasks", params={"split": "validation", "offset": 9, "limit": 18}).json()["tasks"]
        cells = Counter((t["meta"]["level"], t["meta"]["days"]) for t in listed)
        assert len(cells) == 9 and set(cells.values()) == {2}
        outcomes = [_expert_episode(client, t["task_id"]) for t in listed]
    passed = sum(reward == 1.0 for reward, _ in outcomes)
    assert passed / len(outcomes) >= 0.95
    assert all(info["evaluation"]["final_pass"] == (reward == 1.0) for reward, info in outcomes)


def test_sole_planning_over_http() -> None:
    app = create_app("travelplanner", env_options={"mode": "sole-planning"}, config=ServerConfig(record=False))
    with TestClient(app) as client:
        rewards = [_expert_episode(client, f"validation-{i}")[0] for i in range(9)]
        created = client.post("/sessions", json={"task_id": "validation-0"}).json()
        assert "Given information: [{'Description': " in created["observation"]
    assert rewards == [1.0] * 9


def test_eval_plans_cli(tmp_path: Path) -> None:
    from coevo.cli import app
    import coevo.cli.travelplanner_cmd  # noqa: F401  (registers the command)

    db = open_sandbox(seed=0)
    lines = []
    for i in range(6):
        task = generate_task(db, 0, "validation", i)
        plan: object = task.itinerary.plan()
        if i == 1:
            plan = render_text(task.itinerary.plan())  # the text form is read too
        if i == 2:
            plan[1]["lunch"] = plan[1]["breakfast"]  # type: ignore[index]  # repeated restaurant
        if i == 3:
            plan = None
        lines.append(json.dumps({"idx": i + 1, "query": task.query.query, "plan": plan}))
    path = tmp_path / "plans.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(app, ["eval-plans", str(path), "--split-size", "6", "--json", "--details"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["queries"] == 6 and report["delivery_rate"] == 5 / 6
    assert report["final_pass_rate"] == 4 / 6 and report["commonsense_macro_pass_rate"] == 4 / 6
    assert report["plans"][2]["commonsense"]["is_valid_restaurants"]["passed"] is False
    assert report["plans"][3] == {
        "delivered": False,
        "commonsense": None,
        "hard": None,
        "commonsense_pass": False,
        "hard_pass": False,
        "final_pass": False,
        "cost": None,
    }
    table = CliRunner().invoke(app, ["eval-plans", str(path), "--split-size", "6"])
    assert table.exit_code == 0 and "final pass rate" in table.output and "66.7%" in table.output
    path.write_text('{"idx": 9, "plan": []}\n')
    bad = CliRunner().invoke(app, ["eval-plans", str(path), "--split-size", "6"])
    # rich boxes the error and wraps it at the terminal width; read it as one line of words
    words = " ".join(bad.output.replace("│", " ").split())
    assert bad.exit_code != 0 and "no query 9" in words
