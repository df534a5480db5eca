"""AgentGym's index -> goal mapping on a user's WebShop files, against AgentGym's own code.

tests/webshop/fixtures/agentgym_goals.json was written by scripts/fidelity/record_agentgym_goals.py:
AgentGym's `load_products` and `get_goals` (agentenv-webshop at its commit 3ef9235, run
unchanged) and its server's goal shuffle, on the catalog the fixture holds (our generator's
records with edge cases: prices with three, two and one multiple of 10 below 1,000, a product
without an instruction, a duplicate ASIN). Index i there is AgentGym's `/reset {"session_id": i}`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from coevo.config import ServerConfig
from coevo.envs.registry import make
from coevo.envs.webshop.env import WebShopEnv
from coevo.envs.webshop.tasks import NO_PRICE_LIMIT, build
from coevo.server import create_app

FIXTURE: dict[str, Any] = json.loads((Path(__file__).parent / "fixtures" / "agentgym_goals.json").read_text())


@pytest.fixture(scope="module")
def user_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture's catalog as a user's WebShop data folder, with human goals beside it (which
    AgentGym's server never loads), built."""
    root = tmp_path_factory.mktemp("agentgym-goals")
    data = root / "data"
    data.mkdir()
    (data / "items_shuffle.json").write_text(json.dumps(FIXTURE["items_shuffle"]))
    (data / "items_ins_v2.json").write_text(json.dumps(FIXTURE["items_ins_v2"]))
    human = {
        r["asin"]: [
            {
                "instruction": f"i want {r['query']}.",
                "instruction_attributes": ["easy to use"],
                "instruction_options": [],
            }
        ]
        for r in FIXTURE["items_shuffle"][:6]
    }
    (data / "items_human_ins.json").write_text(json.dumps(human))
    build(root / "built", data=data)
    return root / "built"


def test_the_fixture_covers_the_draws_edge_cases() -> None:
    uppers = [g["price_upper"] for g in FIXTURE["goals"]]
    assert len(uppers) == 93 and 1000000 in uppers and 980.0 in uppers and 990.0 in uppers
    assert NO_PRICE_LIMIT == 1000000


def test_synthetic_goals_of_user_files_are_agentgyms_list(user_data: Path) -> None:
    env = make("webshop", data_dir=str(user_data), goals="synthetic")
    assert isinstance(env, WebShopEnv)
    assert sum(env.splits().values()) == len(FIXTURE["goals"])
    for expected in FIXTURE["goals"]:
        result = env.reset(task_id=str(expected["index"]))
        goal = env.goal
        assert goal is not None
        assert result.info["task"] == expected["instruction_text"], expected["index"]
        assert (goal.product.asin, goal.price_upper, dict(goal.options)) == (
            expected["asin"],
            expected["price_upper"],
            expected["goal_options"],
        )


def test_agentgym_indices_give_agentgyms_goals_over_http(user_data: Path) -> None:
    """With the default goals (human: the build has them) the native routes serve human goals,
    and AgentGym's client, which sends only the index, still gets AgentGym's synthetic goal."""
    app = create_app("webshop", env_options={"data_dir": str(user_data)}, config=ServerConfig(record=False))
    with TestClient(app) as client:
        assert sum(client.get("/info").json()["splits"].values()) == 6  # the human goals
        # AgentGym's client creates with no body, which starts a task of our default split
        # (train, the goals past the first 1,500: none in this small catalog); name one.
        sid = client.post("/create", json={"data_idx": 5}).json()
        assert isinstance(sid, str), sid
        for expected in FIXTURE["goals"]:
            answer = client.post("/reset", json={"env_idx": sid, "session_id": expected["index"]}).json()
            assert isinstance(answer, list), answer
            observation = answer[0]
            assert observation == f"WebShop [SEP] Instruction: [SEP] {expected['instruction_text']} [SEP] Search"
        beyond = client.post("/reset", json={"env_idx": sid, "session_id": len(FIXTURE["goals"])})
        assert beyond.status_code == 404 and beyond.json()["error"]["code"] == "unknown_task"
        # The session is an ordinary one: the expert buys AgentGym's goal for reward 1.
        client.post("/reset", json={"env_idx": sid, "session_id": 0})
        reward = 0.0
        for _ in range(20):
            action = client.get(f"/sessions/{sid}/expert").json()["action"]
            if action is None:
                break
            step = client.post("/step", json={"env_idx": sid, "action": action}).json()
            if step["done"]:
                reward = step["reward"]
                break
        assert reward == 1.0
        native = client.post("/sessions", json={"task_id": "0"}).json()
        assert native["observation"].startswith("WebShop [SEP] Instruction: [SEP] i want ")
