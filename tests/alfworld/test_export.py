"""Exported game files: ALFWorld's own domain and grammar, and the same game read back."""

from __future__ import annotations

import hashlib
import importlib.util

import pytest

from coevo.envs.alfworld import engine, scoring
from coevo.envs.alfworld.dialects import dialect
from coevo.envs.alfworld.game import compile_game
from coevo.envs.alfworld.gamefile import parse_game_data
from coevo.envs.alfworld.generator import Knobs, generate
from coevo.envs.alfworld.scoring import TASK_TYPES

pytestmark = pytest.mark.skipif(importlib.util.find_spec("alfworld") is None, reason="needs the alfworld extra")

# sha256 of the domain and of the grammar (task line reset to "UNKNOWN GOAL.") shared by 579 of
# the 582 game.tw-pddl files of ALFWorld's json_2.1.1 release we checked.
JSON_2_1_1_DOMAIN = "34172c333dff7e62eb90e85367fa5519b5f31b3849e56123d96dbc0deda50e27"
JSON_2_1_1_GRAMMAR = "d955e6db384c68ac5797e881b795fd36d788e87a03547f9a87e48fbd7c5b361b"


def test_legacy_logic_is_json_2_1_1s():
    from coevo.envs.alfworld.export import logic

    domain, grammar = logic("2.1.1")
    assert hashlib.sha256(domain.encode()).hexdigest() == JSON_2_1_1_DOMAIN
    assert hashlib.sha256(grammar.encode()).hexdigest() == JSON_2_1_1_GRAMMAR


@pytest.mark.parametrize("dialect_name", ["2.1.1", "2.1.2"])
def test_exported_games_read_back_identically(dialect_name):
    from coevo.envs.alfworld.export import game_data

    for i, task_type in enumerate(TASK_TYPES):
        scene = generate(Knobs(task_type=task_type), 70 + i)
        data = game_data(scene, dialect_name)
        assert data["solvable"] is True
        back = parse_game_data(data)
        assert back.dialect == dialect(dialect_name)
        game = compile_game(back.scene, back.dialect)
        assert game == compile_game(scene, dialect(dialect_name))
        state = engine.State(game)
        for command in data["walkthrough"]:
            assert engine.step(game, state, command).admissible
        assert scoring.won(game, state)


@pytest.mark.parametrize("dialect_name", ["2.1.1", "2.1.2"])
def test_exported_folders_follow_alfworlds_layout(tmp_path, dialect_name):
    import json

    from coevo.envs.alfworld.export import export_game

    scene = generate(Knobs(task_type="look_at_obj_in_light"), 5)
    path = export_game(scene, tmp_path, "valid_seen", 3, dialect_name)
    assert path.parent.parent.parent == tmp_path / "json_2.1.1" / "valid_seen"  # ALFWorld 0.4.2's layout
    assert path.parent.parent.name.startswith(f"look_at_obj_in_light-{scene.goal.obj_type}-None-")
    other = export_game(scene, tmp_path, "valid_seen", 3, dialect_name, data_folder=f"json_{dialect_name}")
    assert other.parent.parent.parent == tmp_path / f"json_{dialect_name}" / "valid_seen"
    traj = json.loads((path.parent / "traj_data.json").read_text())
    assert traj["task_type"] == "look_at_obj_in_light"
    assert traj["pddl_params"] == {
        "object_target": scene.goal.obj_type,
        "parent_target": "",
        "toggle_target": scene.goal.toggle_type,
        "mrecep_target": "",
        "object_sliced": False,
    }
    assert parse_game_data(json.loads(path.read_text())).dialect == dialect(dialect_name)


def test_look_at_tasks_use_both_of_alfworlds_lamps():
    lamps = {generate(Knobs(task_type="look_at_obj_in_light"), seed).goal.toggle_type for seed in range(40)}
    assert lamps == {"DeskLamp", "FloorLamp"}
