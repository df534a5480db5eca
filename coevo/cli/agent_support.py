"""What `coevo eval`, `coevo demo` and `coevo agentevol` share: env servers (started locally or
reached by URL), a progress bar, results tables, and recording runs in the SQL store."""

from __future__ import annotations

import contextlib
import re
import signal
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

if TYPE_CHECKING:
    from coevo.client.trajectory import Trajectory


def exit_cleanly_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so `finally` blocks run and started servers are stopped
    (Python's default SIGTERM action kills the process on the spot and orphans them)."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


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
