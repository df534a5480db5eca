"""Dialogues: API-Bank's level-1/2 jsonl files (turns of User, AI and API) as immutable records."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LEVEL_DIRS: dict[int, str] = {1: "level-1-given-desc", 2: "level-2-toolsearcher"}


@dataclass(frozen=True)
class Turn:
    role: str  # "User", "AI" or "API"
    text: str = ""
    api_name: str = ""
    #: The call's arguments as written (strings), for API turns.
    param_dict: Mapping[str, Any] = field(default_factory=dict)
    #: The recorded (or, for generated dialogues, sandbox-computed) result dict.
    result: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Dialogue:
    task_id: str
    level: int
    turns: tuple[Turn, ...]
    #: The jsonl file name for shipped dialogues, "generated" otherwise.
    source: str = "generated"

    @property
    def api_names(self) -> tuple[str, ...]:
        """APIs called in the dialogue, in order of first use (level-1 shows their docs)."""
        seen: dict[str, None] = {}
        for turn in self.turns:
            if turn.role == "API":
                seen.setdefault(turn.api_name, None)
        return tuple(seen)

    @property
    def api_turns(self) -> list[int]:
        return [i for i, t in enumerate(self.turns) if t.role == "API"]


def parse_turn(row: Mapping[str, Any]) -> Turn:
    role = row["role"]
    if role == "API":
        return Turn("API", api_name=row["api_name"], param_dict=dict(row["param_dict"]),
                    result=row["result"])
    if role not in ("User", "AI"):
        raise ValueError(f"unknown dialogue role {role!r}")
    return Turn(role, text=row["text"])


def load_dialogue_file(path: Path, level: int, task_id: str) -> Dialogue:
    turns = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                turns.append(parse_turn(json.loads(line)))
    return Dialogue(task_id, level, tuple(turns), source=path.name)


def load_shipped(samples_dir: Path) -> dict[int, list[Dialogue]]:
    """Level -> dialogues of `lv1-lv2-samples/`, sorted by file name (task ids l1-*/l2-*).

    Empty files are skipped (the release's level-1 folder has one: SearchEngine-level-1-1).
    """
    found: dict[int, list[Dialogue]] = {}
    for level, sub in LEVEL_DIRS.items():
        folder = samples_dir / sub
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder} is missing (expected API-Bank's {sub} dialogues)")
        dialogues = [
            load_dialogue_file(path, level, f"l{level}-{path.stem}")
            for path in sorted(folder.glob("*.jsonl"))
        ]
        found[level] = [d for d in dialogues if d.turns]
    return found
