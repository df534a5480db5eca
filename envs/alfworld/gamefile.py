"""`game.tw-pddl` files: ALFWorld's game format (JSON: PDDL domain, grammar, PDDL problem).

`load_game_file` reads one (a real ALFWorld game or one we exported) into a `Scene` and the
dialect its grammar speaks; the task sentence is the one the grammar's `task` rule states.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from coevo.envs.alfworld.dialects import Dialect, detect_dialect
from coevo.envs.alfworld.problem import read_problem
from coevo.envs.alfworld.scene import Scene
from coevo.envs.alfworld.tables import tables

_TASK = re.compile(r'"rhs":\s*"Your task is to: ((?:[^"\\]|\\.)*)"')


class BadGameFile(ValueError):
    """Not a readable game.tw-pddl file."""


@dataclass(frozen=True)
class GameFile:
    scene: Scene
    dialect: Dialect
    solvable: bool | None
    walkthrough: list[str] | None


def task_sentence(grammar: str) -> str:
    m = _TASK.search(grammar)
    if m is None:
        raise BadGameFile("the grammar states no task ('Your task is to: ...')")
    return json.loads(f'"{m.group(1)}"')


def parse_game_data(data: dict, name: str = "game") -> GameFile:
    try:
        domain, grammar, problem = data["pddl_domain"], data["grammar"], data["pddl_problem"]
    except (KeyError, TypeError) as exc:
        raise BadGameFile(f"{name}: missing pddl_domain / grammar / pddl_problem") from exc
    scene = read_problem(problem, task_sentence(grammar), tables().type_names)
    return GameFile(scene, detect_dialect(grammar, domain), data.get("solvable"), data.get("walkthrough"))


def load_game_file(path: str | Path) -> GameFile:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise BadGameFile(f"{path}: {exc}") from exc
    return parse_game_data(data, str(path))
