"""Progress of a rollout command: a bar in the terminal, and lines in a log file beside it."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


class ProgressLog:
    """Progress lines in a log file, beside the terminal's progress bar: a run started from a
    script, under nohup or in CI shows where it stands with `tail -f`."""

    def __init__(self, path: Path, title: str, total: int) -> None:
        self.path, self.title, self.total = path, title, total
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("a", buffering=1)
        self._started = time.monotonic()
        self.done = self.ok = 0
        self.write(f"start: {title}, {total} episodes")

    def write(self, message: str) -> None:
        stamp = datetime.now().isoformat(timespec="seconds")
        self._file.write(f"{stamp} {message}\n")

    def episode(self, success: bool) -> None:
        self.done += 1
        self.ok += int(success)
        elapsed = time.monotonic() - self._started
        self.write(f"{self.title}: {self.done}/{self.total} episodes, {self.ok} successful, {elapsed:.0f}s")

    def close(self) -> None:
        self.write(f"end: {self.title}, {self.ok}/{self.done} successful")
        self._file.close()


def progress_bar(console: Console) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("success {task.fields[success]}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
