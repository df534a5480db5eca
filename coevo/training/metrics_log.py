"""A run's metrics.jsonl: one JSON object a line, appended as the run goes.

Appends are atomic: the rows of one call (a stage's held-out rows and the stage's own row) go
out in a single write on a file opened for appending, then to disk, so a run killed mid-write
leaves at most one torn last line. That line (no newline at its end) is cut off before the next
append, so a resumed run never glues its first row to half of an old one, and readers skip it.
Rows are plain dicts in the trainer's own key order: the scaffold adds no field.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

Row = dict[str, Any]


class MetricsLog:
    def __init__(self, path: Path, *, default_kind: str | None = None) -> None:
        """`default_kind`: the kind of rows written without a "kind" field (GenEnv's epoch rows)."""
        self.path = path
        self.default_kind = default_kind

    # ------------------------------------------------------------------ writing
    def append(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Append `rows` in one write (all of them, or on a crash at most a torn last line)."""
        data = "".join(json.dumps(dict(row)) + "\n" for row in rows).encode()
        if not data:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._cut_torn_tail()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = os.write(fd, data)
            while written < len(data):  # a regular file takes it whole; a short write is finished
                written += os.write(fd, data[written:])
            os.fsync(fd)
        finally:
            os.close(fd)

    def write(self, row: Mapping[str, Any]) -> None:
        self.append([row])

    def forget(self, drop: Callable[[Row], bool]) -> int:
        """Remove the rows `drop` picks (what an interrupted epoch left behind), rewriting the
        file through a rename; returns how many went."""
        rows = self.rows()
        kept = [r for r in rows if not drop(r)]
        if len(kept) != len(rows):
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_text("".join(json.dumps(r) + "\n" for r in kept))
            os.replace(tmp, self.path)
        return len(rows) - len(kept)

    def _cut_torn_tail(self) -> None:
        """Truncate a last line without its newline (a write a crash cut short)."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return
        if size == 0:
            return
        with self.path.open("rb+") as f:
            f.seek(size - 1)
            if f.read(1) == b"\n":
                return
            f.seek(0)
            data = f.read()
            f.truncate(data.rfind(b"\n") + 1)

    # ------------------------------------------------------------------ reading
    def rows(self, kind: str | None = None) -> list[Row]:
        """Every complete row in file order, or those of one `kind` (a torn last line is skipped)."""
        if not self.path.exists():
            return []
        text = self.path.read_text()
        lines = text.split("\n")
        if not text.endswith("\n"):
            lines = lines[:-1]  # torn by a crash: not a row
        rows = [json.loads(line) for line in lines if line.strip()]
        if kind is None:
            return rows
        return [r for r in rows if r.get("kind", self.default_kind) == kind]
