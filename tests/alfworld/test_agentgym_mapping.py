"""AgentGym's item indices on a user's ALFWorld game files: the games AgentGym's mapping files name.

The fixture (scripts/fidelity/record_agentgym_alfworld_mapping.py) is AgentGym's own
`ALFWorld_Wrapper` game list over a synthetic tree of exported games and synthetic mapping files
in its format: a shuffled subset of the train games (one marked unsolvable, one entry whose folder
does not exist), then the valid_train games shuffled. The tests rebuild that tree and ask our env
and our AgentGym routes for every index.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from coevo.config import ServerConfig
from coevo.envs.alfworld.env import AlfWorldEnv
from coevo.envs.alfworld.tasks import GeneratedCatalog, RealCatalog, agentgym_games
from coevo.envs.base import UnknownTask
from coevo.server import create_app

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("alfworld") is None, reason="exporting games needs the alfworld extra"
)

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "agentgym_mapping.json").read_text())


def _task_id(path: str) -> str:
    """`json_2.1.1/<split>/<folder>/<trial>/game.tw-pddl` -> our real task id."""
    parts = path.split("/")
    assert parts[0] == "json_2.1.1" and parts[-1] == "game.tw-pddl"
    return "/".join(parts[1:-1])


EXPECTED = [_task_id(p) for p in FIXTURE["agentgym_games"]]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(data folder, mapping folder) laid out as the recorder laid them out for AgentGym."""
    from coevo.envs.alfworld.export import export_game

    root = tmp_path_factory.mktemp("agentgym_mapping")
    data, configs = root / "data", root / "configs"
    catalog = GeneratedCatalog()
    for split, index, task_id in FIXTURE["export"]:
        path = export_game(catalog.scene(split, index), data, split, index, "2.1.1")
        assert f"{split}/{path.parent.parent.name}/{path.parent.name}" == task_id  # same games as recorded
    game = data / "json_2.1.1" / FIXTURE["unsolvable"] / "game.tw-pddl"
    game.write_text(json.dumps({**json.loads(game.read_text()), "solvable": False}))
    configs.mkdir()
    for name, entries in FIXTURE["mappings"].items():
        (configs / name).write_text(json.dumps(entries))
    return data, configs


def _env(tree: tuple[Path, Path], **options: Any) -> AlfWorldEnv:
    data, configs = tree
    return AlfWorldEnv(games="alfworld", data_path=str(data), agentgym_mappings=str(configs), **options)


def test_mapping_files_read_in_agentgym_order(tree: tuple[Path, Path]) -> None:
    assert agentgym_games(tree[1]) == EXPECTED
    assert EXPECTED[0].startswith("train/") and EXPECTED[-1].startswith("valid_train/")


def test_every_index_names_agentgyms_game(tree: tuple[Path, Path]) -> None:
    data, _ = tree
    env = _env(tree)
    served = 0
    for index, task_id in enumerate(EXPECTED):
        if (data / "json_2.1.1" / task_id / "game.tw-pddl").is_file():
            assert env.agentgym_task(index) == task_id
            assert env.shared.real.paths[task_id] == data / "json_2.1.1" / task_id / "game.tw-pddl"
            served += 1
        else:  # AgentGym lists the path all the same and fails at its reset; we refuse the index
            with pytest.raises(UnknownTask, match="trial_coevo_missing"):
                env.agentgym_task(index)
    assert served == len(EXPECTED) - 1
    with pytest.raises(UnknownTask, match="past AgentGym's mapping files"):
        env.agentgym_task(len(EXPECTED))


def test_unsolvable_mapped_game_is_served(tree: tuple[Path, Path]) -> None:
    unsolvable = FIXTURE["unsolvable"]
    assert unsolvable in EXPECTED
    assert unsolvable not in RealCatalog(tree[0]).paths  # ALFWorld's selection drops it
    env = _env(tree)
    assert env.split_of(unsolvable) == "train" and env.task_ids("train")[-1] == unsolvable
    assert env.reset(task_id=unsolvable).observation.startswith("-= Welcome to TextWorld, ALFRED! =-")


def test_agentgym_routes_reset_the_mapped_games(tree: tuple[Path, Path]) -> None:
    data, configs = tree
    options = {"games": "alfworld", "data_path": str(data), "agentgym_mappings": str(configs)}
    with TestClient(create_app("alfworld", env_options=options, config=ServerConfig(record=False))) as client:
        sid = client.post("/create").json()["id"]
        for index, task_id in enumerate(EXPECTED):
            r = client.post("/reset", json={"id": sid, "game": index, "world_type": "Text"})
            if "missing" in task_id:
                assert r.status_code == 404 and "not under" in r.text
                continue
            assert r.status_code == 200
            assert client.get(f"/sessions/{sid}").json()["task_id"] == task_id
            assert r.json()["observation"].startswith("You are in the middle of a room.")
            # AgentGym's reply names the game by its path: `gamefile.split("/")[-3:-1]`.
            assert r.json()["task_type"] == "/".join(FIXTURE["agentgym_games"][index].split("/")[-3:-1])
            assert set(r.json()) == {"id", "observation", "available_actions", "task_type"}


def test_real_games_without_mapping_files_refuse_indices(tree: tuple[Path, Path]) -> None:
    options = {"games": "alfworld", "data_path": str(tree[0])}
    with TestClient(create_app("alfworld", env_options=options, config=ServerConfig(record=False))) as client:
        sid = client.post("/create").json()["id"]
        r = client.post("/reset", json={"id": sid, "game": 0, "world_type": "Text"})
        assert r.status_code == 404 and "agentgym_mappings" in r.text


def test_bad_mapping_options_are_refused(tree: tuple[Path, Path], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs games=alfworld"):
        AlfWorldEnv.load_shared(agentgym_mappings=str(tree[1]))
    with pytest.raises(FileNotFoundError, match="mappings_train.json"):
        agentgym_games(tmp_path)
    (tmp_path / "mappings_train.json").write_text(json.dumps([{"item_id": 0, "task_type": "..", "task_id": "x"}]))
    (tmp_path / "mappings_test.json").write_text("[]")
    with pytest.raises(ValueError, match="entry 0"):
        agentgym_games(tmp_path)
    (tmp_path / "mappings_train.json").write_text(json.dumps({"item_id": 0}))
    with pytest.raises(ValueError, match="expected a list"):
        agentgym_games(tmp_path)
