"""A GenEnv run's metrics.jsonl: one row per epoch and arm, and one "heldout" row per split,
arm and epoch; rows of an interrupted epoch are dropped before it is redone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class MetricsFile:
    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, row: dict[str, Any]) -> None:
        with self.path.open("a") as f:
            f.write(json.dumps(row) + "\n")

    def forget(self, arm: str, first_epoch: int) -> None:
        """Drop `arm`'s rows from `first_epoch` on (what an interrupted epoch left behind)."""
        rows = self.rows()
        kept = [r for r in rows if not (r["arm"] == arm and r["epoch"] >= first_epoch)]
        if len(kept) != len(rows):
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text("".join(json.dumps(r) + "\n" for r in kept))
            tmp.replace(self.path)

    def rows(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text().splitlines() if line.strip()]

    def epochs(self) -> list[dict[str, Any]]:
        """The epoch rows (one per epoch and arm)."""
        return [r for r in self.rows() if r.get("kind", "epoch") == "epoch"]

    def heldout(self) -> list[dict[str, Any]]:
        """The held-out rows: one per split, arm and epoch (epoch -1: the starting agent)."""
        return [r for r in self.rows() if r.get("kind") == "heldout"]
