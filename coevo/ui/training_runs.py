"""Trainer run folders (AgentEvol, GenEnv): each folder under runs/ holding a metrics.jsonl.

A trainer appends one JSON line per epoch or stage; a trainer killed mid-write leaves a last
line cut short, so rows are read line by line and a line that does not parse is left out:
every complete row still renders.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

METRICS = "metrics.jsonl"
MAX_DEPTH = 4


@dataclass(frozen=True)
class TrainingRun:
    #: The folder relative to the runs root (the page's address).
    name: str
    path: Path
    kind: str
    rows: int
    modified: float


def kind_of(rows: list[dict[str, Any]]) -> str:
    if any(r.get("kind") == "stage" for r in rows):
        return "agentevol"
    if any("arm" in r and "epoch" in r for r in rows):
        return "genenv"
    return "other"


def read_rows(path: Path) -> tuple[list[dict[str, Any]], bool]:
    """The complete rows of a metrics file and whether a partial last line was left out."""
    rows: list[dict[str, Any]] = []
    try:
        data = path.read_bytes()
    except OSError:
        return rows, False
    partial = False
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            partial = True  # a write in progress, or a trainer killed mid-line: skip that line only
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows, partial


def find_runs(root: Path) -> list[TrainingRun]:
    if not root.is_dir():
        return []
    runs = []
    for depth in range(1, MAX_DEPTH + 1):
        for path in sorted(root.glob("/".join(["*"] * depth) + f"/{METRICS}")):
            rows, _ = read_rows(path)
            name = str(path.parent.relative_to(root))
            runs.append(TrainingRun(name, path.parent, kind_of(rows), len(rows), path.stat().st_mtime))
    return sorted(runs, key=lambda r: -r.modified)


def run_folder(root: Path, name: str) -> Path | None:
    """The run folder `name` under `root`, or None (also for names that leave the root)."""
    try:
        folder = (root / name).resolve()
        folder.relative_to(root.resolve())
    except (ValueError, OSError):
        return None
    return folder if (folder / METRICS).is_file() else None
