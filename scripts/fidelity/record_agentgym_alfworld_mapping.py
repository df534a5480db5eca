"""Record which game AgentGym's ALFWorld server gives each item index, once, on a synthetic tree.

Exports a few generated games in ALFWorld's folder layout (envs/alfworld/export.py, dialect
2.1.1 as AgentGym's data), marks one unsolvable, writes small mapping files in the shape of
AgentGym's `configs/mappings_{train,test}.json` (a shuffled subset of the train games, one entry
whose folder does not exist, the valid_train games shuffled), then builds AgentGym's own
`ALFWorld_Wrapper` (agentenv-alfworld/agentenv_alfworld/env_wrapper.py of a checkout of github
WooooDyy/AgentGym, not vendored: pass its path) over them and writes its game list, index by
index, with the inputs, as tests/alfworld/fixtures/agentgym_mapping.json.
tests/alfworld/test_agentgym_mapping.py rebuilds the same tree and checks that our AgentGym
routes resolve every index to the same game.

    python scripts/fidelity/record_agentgym_alfworld_mapping.py /path/to/AgentGym

Only the wrapper's constructor runs (it builds the list; its sessions need TextWorld and gym):
its `environment` module is replaced by a stub class, its `utils` (yaml) is its own, and its
configs folder is a temporary copy holding the synthetic mapping files.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[2] / "tests" / "alfworld" / "fixtures" / "agentgym_mapping.json"

#: The games exported: (split, index) of the generated catalogue, as (split, index) pairs.
EXPORT: list[tuple[str, int]] = [("train", i) for i in range(7)] + [("valid_train", i) for i in range(4)]
#: The exported game marked `"solvable": false` (ALFWorld's selection drops it; AgentGym does not).
UNSOLVABLE = ("train", 3)
#: Train games the mapping leaves out (AgentGym's names 2,420 of the train folder's games).
UNMAPPED = {("train", 5)}


def build_tree(data: Path) -> dict[tuple[str, int], str]:
    """Export EXPORT under `data`; the task id (`<split>/<task folder>/<trial>`) of each game."""
    from coevo.envs.alfworld.export import export_game
    from coevo.envs.alfworld.tasks import GeneratedCatalog

    catalog = GeneratedCatalog()
    ids: dict[tuple[str, int], str] = {}
    for split, index in EXPORT:
        path = export_game(catalog.scene(split, index), data, split, index, "2.1.1")
        ids[split, index] = f"{split}/{path.parent.parent.name}/{path.parent.name}"
    game = data / "json_2.1.1" / ids[UNSOLVABLE] / "game.tw-pddl"
    game.write_text(json.dumps({**json.loads(game.read_text()), "solvable": False}))
    return ids


def mapping_files(ids: dict[tuple[str, int], str]) -> dict[str, list[dict[str, Any]]]:
    """Synthetic mapping files in AgentGym's shape, item ids numbered as in its files."""
    rng = random.Random(21)
    train = [ids[k] for k in EXPORT if k[0] == "train" and k not in UNMAPPED]
    rng.shuffle(train)
    missing_folder = train[0].split("/")[1]
    train.insert(2, f"train/{missing_folder}/trial_coevo_missing")  # a game the data folder lacks
    test = [ids[k] for k in EXPORT if k[0] == "valid_train"]
    rng.shuffle(test)
    files: dict[str, list[dict[str, Any]]] = {}
    item = 0
    for name, tids in (("mappings_train.json", train), ("mappings_test.json", test)):
        files[name] = []
        for tid in tids:
            _, task_type, task_id = tid.split("/")
            files[name].append({"item_id": item, "task_type": task_type, "task_id": task_id})
            item += 1
    return files


def agentgym_games(agentgym: Path, data: Path, files: dict[str, list[dict[str, Any]]], tmp: Path) -> list[str]:
    """AgentGym's wrapper's game list over `data`, as paths relative to it."""
    src = agentgym / "agentenv-alfworld"
    pkg = tmp / "agentgym" / "agentenv_alfworld"
    shutil.copytree(src / "agentenv_alfworld", pkg)
    configs = pkg.parent / "configs"
    configs.mkdir()
    shutil.copy(src / "configs" / "base_config.yaml", configs)
    for name, entries in files.items():
        (configs / name).write_text(json.dumps(entries, indent=4))
    home = tmp / "home"
    (home / ".cache").mkdir(parents=True)
    (home / ".cache" / "alfworld").symlink_to(data)
    os.environ["HOME"] = str(home)  # the module builds its server over ~/.cache/alfworld
    package = types.ModuleType("agentenv_alfworld")
    package.__path__ = [str(pkg)]  # its __init__ starts the FastAPI app: not needed here
    stub = types.ModuleType("agentenv_alfworld.environment")
    stub.SingleAlfredTWEnv = type("SingleAlfredTWEnv", (), {})  # type: ignore[attr-defined]
    sys.modules["agentenv_alfworld"] = package
    sys.modules["agentenv_alfworld.environment"] = stub
    wrapper = importlib.import_module("agentenv_alfworld.env_wrapper")
    root = str(home / ".cache" / "alfworld")
    return [os.path.relpath(game, root) for game in wrapper.server.games]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agentgym", type=Path, help="a checkout of github WooooDyy/AgentGym")
    parser.add_argument("--commit", help="the checkout's commit, where it is no git work tree")
    args = parser.parse_args()
    commit = (
        args.commit
        or subprocess.run(
            ["git", "-C", str(args.agentgym), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        or "unknown"
    )
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        data = tmp / "data"
        ids = build_tree(data)
        files = mapping_files(ids)
        games = agentgym_games(args.agentgym.resolve(), data, files, tmp)
    fixture = {
        "source": f"github WooooDyy/AgentGym {commit}: agentenv-alfworld ALFWorld_Wrapper().games",
        "export": [[split, index, ids[split, index]] for split, index in EXPORT],
        "unsolvable": ids[UNSOLVABLE],
        "mappings": files,
        "agentgym_games": games,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"wrote {OUT}: {len(games)} indices")


if __name__ == "__main__":
    main()
