"""Envs own their knowledge: no registered env id appears in server/ or client/ (code, comments,
docstrings or data), so a new env touches only its own folder and its registry line."""

from __future__ import annotations

import re
from pathlib import Path

from coevo.envs import registry

ROOT = Path(__file__).resolve().parents[2]


def mentions(folder: Path, names: list[str]) -> list[str]:
    """Every case-insensitive mention of a name in the files under `folder` (a name inside a
    longer word, e.g. "simulators", does not count; "_alfworld_" does), as path:line: text."""
    pattern = re.compile(r"(?<![a-z0-9])(" + "|".join(map(re.escape, names)) + r")(?![a-z0-9])", re.IGNORECASE)
    found = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            found += [f"{path.relative_to(folder)}:{number}: {m.group(0)}" for m in pattern.finditer(line)]
    return found


def test_server_and_client_name_no_env() -> None:
    names = [n for n in registry.names() if n != "guess"]  # "guess" is the tests' fixture env
    assert {"alfworld", "bfcl", "webshop", "simulator"} <= set(names)
    for folder in ("server", "client"):
        assert mentions(ROOT / folder, names) == [], folder


def test_mentions_finds_names_in_code_comments_and_data(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text('PROMPTS = {"ALFWorld": 1}  # _bfcl_thought\nsimulators, bfcl2\n')
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "d.json").write_text('["a simulator"]\n')
    assert mentions(tmp_path, ["alfworld", "bfcl", "simulator"]) == [
        "data/d.json:1: simulator",
        "m.py:1: ALFWorld",
        "m.py:1: bfcl",
    ]
