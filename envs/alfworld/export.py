"""Write generated games as ALFWorld `game.tw-pddl` files, playable by the real engine.

A game file holds the PDDL domain, the grammar with the task sentence filled in, the PDDL
problem, and `solvable` / `walkthrough` (the expert's commands). Domain and grammar are the
ones in the installed alfworld wheel (`alfworld/data/alfred.pddl`, `alfred.twl2`: dialect
"2.1.2"); dialect "2.1.1" applies the few edits that turn them into the older game files'
(`put X in/on Y`, "You arrive at loc N.", no `help`). So exporting needs the `alfworld` extra.

    python -m coevo.envs.alfworld.export OUT_DIR [--split valid_unseen] [--count N] [--dialect 2.1.1]

writes `OUT_DIR/json_2.1.1/<split>/<task type>-<Object>-None-<Receptacle>-<floor plan>/trial_coevo_<i>/`
with `game.tw-pddl` and `traj_data.json` (the task type and ALFRED's `pddl_params`, which
ALFWorld's `AlfredTWEnv.collect_game_files` and its handcoded expert read): the layout ALFWorld's
own tools (and `$ALFWORLD_DATA` loaders) expect. Games of both dialects go under `json_2.1.1/`,
as in ALFWorld 0.4.2's own data: its `patch_tw-pddl.py` rewrites the 2.1.1 game files into 2.1.2
in place there, and its base_config.yaml reads `$ALFWORLD_DATA/json_2.1.1/<split>`. `--folder`
names another (e.g. `json_2.1.2`, to keep both dialects side by side).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from functools import lru_cache
from pathlib import Path

from coevo.envs.alfworld import engine, expert
from coevo.envs.alfworld.dialects import DEFAULT_DIALECT, dialect
from coevo.envs.alfworld.game import compile_game
from coevo.envs.alfworld.problem import write_problem
from coevo.envs.alfworld.scene import Scene

_LEGACY_GRAMMAR_EDITS = (
    (
        '"rhs": "You arrive at {r.name}. #examineReceptacle.feedback#"',
        '"rhs": "You arrive at {lend.name}. #examineReceptacle.feedback#"',
    ),
    ('"rhs": "You move the {o.name} to the {r.name}."', '"rhs": "You put the {o.name} in/on the {r.name}."'),
    ('template :: "move {o} to {r}";', 'template :: "put {o} in/on {r}";'),
)


class ExportUnavailable(RuntimeError):
    """The alfworld wheel (whose domain and grammar files we export with) is not installed."""


def _alfworld_data_dir() -> Path:
    # find_spec locates the package without importing it (importing sets $ALFWORLD_DATA).
    spec = importlib.util.find_spec("alfworld")
    if spec is None or not spec.submodule_search_locations:
        raise ExportUnavailable("exporting game files needs the alfworld extra: pip install 'coevo[alfworld]'")
    return Path(next(iter(spec.submodule_search_locations))) / "data"


@lru_cache(maxsize=4)
def logic(dialect_name: str) -> tuple[str, str]:
    """(PDDL domain, grammar template with "UNKNOWN GOAL") of a dialect."""
    data = _alfworld_data_dir()
    domain = (data / "alfred.pddl").read_text()
    grammar = (data / "alfred.twl2").read_text()
    if dialect_name == "2.1.2":
        return domain, grammar
    if dialect_name != "2.1.1":
        dialect(dialect_name)  # raises UnknownDialect
    for old, new in _LEGACY_GRAMMAR_EDITS:
        if old not in grammar:
            raise ExportUnavailable(f"unexpected alfred.twl2: no {old!r}")
        grammar = grammar.replace(old, new)
    cut = grammar.index("\n\naction help {")
    grammar = grammar[:cut] + "\n"
    sink = ";(receptacleType ?r SinkType)"
    if sink not in domain:
        raise ExportUnavailable("unexpected alfred.pddl: no SinkType line")
    domain = domain.replace(sink, sink[1:])
    help_at = domain.find("\n(:action help")
    if help_at < 0:
        raise ExportUnavailable("unexpected alfred.pddl: no help action")
    domain = domain[: help_at + 1] + ")\n"
    return domain, grammar


def game_data(scene: Scene, dialect_name: str = DEFAULT_DIALECT) -> dict:
    """The game.tw-pddl content of a scene, walkthrough by the expert."""
    domain, grammar = logic(dialect_name)
    task = json.dumps(scene.task)[1:-1]
    if "UNKNOWN GOAL." not in grammar:
        raise ExportUnavailable("unexpected alfred.twl2: no 'UNKNOWN GOAL.' task line")
    game = compile_game(scene, dialect(dialect_name))
    try:
        walkthrough = [turn.action for turn in expert.plan(game, engine.State(game))]
    except expert.NoPlan:
        walkthrough = None
    return {
        "pddl_domain": domain,
        "grammar": grammar.replace("UNKNOWN GOAL.", task),
        "pddl_problem": write_problem(scene),
        "solvable": walkthrough is not None,
        "walkthrough": walkthrough,
    }


def traj_data(scene: Scene, split: str = "valid_unseen") -> dict:
    """The parts of ALFRED's traj_data.json that ALFWorld reads: task type, pddl_params, scene."""
    goal = scene.goal
    return {
        "task_type": goal.task_type,
        "pddl_params": {
            "object_target": goal.obj_type,
            "parent_target": goal.recep_type or "",
            "toggle_target": goal.toggle_type or "",
            "mrecep_target": "",
            "object_sliced": False,
        },
        "scene": {"floor_plan": f"FloorPlan{scene.floorplan or 0}", "scene_num": scene.floorplan or 0},
        "split": split,
        "task_id": scene.name,
        "turk_annotations": {"anns": [{"task_desc": scene.task, "high_descs": [], "votes": []}]},
    }


#: ALFWorld's data folder for game files of either dialect (see the module docstring).
DATA_FOLDER = "json_2.1.1"


def export_game(
    scene: Scene, out: Path, split: str, index: int, dialect_name: str = DEFAULT_DIALECT, data_folder: str = DATA_FOLDER
) -> Path:
    """Write one game's folder under `out/<data_folder>/<split>/`; returns its game.tw-pddl path."""
    dialect(dialect_name)  # refuse an unknown dialect before writing anything
    folder = out / data_folder / split / game_dir_name(scene) / f"trial_coevo_{index}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "traj_data.json").write_text(json.dumps(traj_data(scene, split), indent=2))
    path = folder / "game.tw-pddl"
    path.write_text(json.dumps(game_data(scene, dialect_name)))
    return path


def game_dir_name(scene: Scene) -> str:
    """ALFWorld's folder name for a game: `<task type>-<Object>-None-<Receptacle>-<floor plan>`."""
    goal = scene.goal
    target = goal.recep_type or goal.toggle_type
    return f"{goal.task_type}-{goal.obj_type}-None-{target}-{scene.floorplan or 0}"


def main(argv: list[str] | None = None) -> None:
    from coevo.envs.alfworld.tasks import GeneratedCatalog

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--split", default="valid_unseen")
    parser.add_argument("--count", type=int, default=None, help="games (default: the split's size)")
    parser.add_argument("--dialect", default=DEFAULT_DIALECT)
    parser.add_argument("--folder", default=DATA_FOLDER, help=f"data folder under OUT (default {DATA_FOLDER})")
    args = parser.parse_args(argv)
    catalog = GeneratedCatalog()
    count = catalog.sizes[args.split] if args.count is None else args.count
    for index in range(count):
        export_game(catalog.scene(args.split, index), args.out, args.split, index, args.dialect, args.folder)
    print(f"wrote {count} games to {args.out / args.folder / args.split}")


if __name__ == "__main__":
    main()
