"""What `coevo eval`, `coevo demo` and `coevo agentevol` share: env servers (started locally or
reached by URL), a progress bar, results tables, and recording runs in the SQL store."""

from __future__ import annotations

import contextlib
import re
import signal
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

if TYPE_CHECKING:
    from coevo.client.trajectory import Trajectory


#: Called first when SIGTERM or SIGINT arrives (e.g. a policy's cancel, so a generation in a
#: worker thread stops at its next token instead of holding up the exit).
_ON_SIGNAL: list[Callable[[], None]] = []


def on_signal(callback: Callable[[], None]) -> None:
    """Run `callback` when SIGTERM or Ctrl-C arrives, before the exit starts."""
    _ON_SIGNAL.append(callback)


def _handle(signum: int, frame: Any) -> None:
    for callback in list(_ON_SIGNAL):
        callback()
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    sys.exit(128 + signum)


def exit_cleanly_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so `finally` blocks run and started servers are stopped
    (Python's default SIGTERM action kills the process on the spot and orphans them); on both
    SIGTERM and Ctrl-C, the `on_signal` callbacks run first."""
    signal.signal(signal.SIGTERM, _handle)
    signal.signal(signal.SIGINT, _handle)


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


@contextlib.contextmanager
def env_servers(
    envs: Sequence[str],
    *,
    urls: Mapping[str, Sequence[str]] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    db_url: str | None = None,
) -> Iterator[dict[str, list[str]]]:
    """{env: [base urls]}: the given URLs, and local `coevo serve` subprocesses for the rest."""
    from coevo.client.launcher import ServerSpec, launch_local

    given = {env: list(u) for env, u in (urls or {}).items() if u}
    missing = [env for env in envs if env not in given]
    if not missing:
        yield given
        return
    specs = [ServerSpec(env, dict((options or {}).get(env, {}))) for env in missing]
    with launch_local(specs, db_url=db_url) as started:
        yield {**given, **{env: [url] for env, url in started.items()}}


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


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def results_table(title: str, summary: Mapping[str, Any]) -> Table:
    """Overall numbers and the per-task-type breakdown of one evaluation."""
    table = Table(title=title, show_lines=False)
    for column in ("task type", "n", "success", "mean reward", "mean steps", "unreadable", "accepted"):
        table.add_column(column, justify="left" if column == "task type" else "right")

    def accepted(stats: Mapping[str, Any]) -> str:
        rate = stats.get("accepted_action_rate")
        return "-" if rate is None else pct(rate)

    for name, stats in summary["by_task_type"].items():
        table.add_row(
            name, str(stats["n"]), pct(stats["success_rate"]), f"{stats['mean_reward']:.3f}",
            f"{stats['mean_steps']:.1f}", pct(stats["invalid_reply_rate"]), accepted(stats),
        )  # fmt: skip
    table.add_section()
    table.add_row(
        "[bold]all", str(summary["n"]), f"[bold]{pct(summary['success_rate'])}", f"{summary['mean_reward']:.3f}",
        f"{summary['mean_steps']:.1f}", pct(summary["invalid_reply_rate"]), accepted(summary),
    )  # fmt: skip
    return table


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "run"


class RunRecorder:
    """Writes one rollout run and its trajectories to the SQL store (or nothing, when disabled)."""

    def __init__(self, db_url: str | None, *, enabled: bool = True) -> None:
        self.engine = None
        if enabled:
            from coevo.store import make_engine
            from coevo.store import rollouts  # noqa: F401  (registers the tables before create_all)

            self.engine = make_engine(db_url)

    def start(self, *, name: str, kind: str, policy: str, config: Mapping[str, Any]) -> str | None:
        if self.engine is None:
            return None
        from coevo.store.rollouts import create_run

        return create_run(self.engine, name=name, kind=kind, policy=policy, config=config)

    def save(self, run_id: str | None, trajectories: Sequence[Trajectory], summary: Mapping[str, Any]) -> None:
        if self.engine is None or run_id is None:
            return
        from coevo.store.rollouts import finish_run, save_trajectories

        save_trajectories(self.engine, run_id, [t.to_record() for t in trajectories])
        finish_run(self.engine, run_id, summary)

    @property
    def url(self) -> str | None:
        return None if self.engine is None else self.engine.url.render_as_string(hide_password=True)
