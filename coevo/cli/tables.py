"""How the commands print results: percentages, an evaluation's table, file-name slugs."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

#: Column headers of an evaluation's table and what each means (the table's caption).
RESULT_COLUMNS = {
    "task type": "",
    "n": "episodes",
    "unscored": "episodes the env never judged (abandoned, env, policy or transport error), left out of every rate",
    "success": "",
    "mean reward": "",
    "model turns": "replies the policy gave per episode",
    "env steps": "actions the env received per episode",
    "unreadable": "replies with no action the env's format could read",
    "accepted": "actions the env accepted as valid",
}


#: Widest a table is printed to a file or pipe (a log line's reasonable length).
PIPE_WIDTH = 160


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def print_table(console: Console, table: Table) -> None:
    """Print `table` without cutting a column: written to a file or a pipe, where rich assumes
    80 columns, it gets its natural width up to PIPE_WIDTH (wider text wraps inside its cell;
    columns marked no_wrap keep their width); in a terminal, rich fits it to the window."""
    if console.is_terminal:
        console.print(table)
        return
    natural = Measurement.get(console, console.options.update(max_width=10_000), table).maximum
    before = console.width
    console.width = max(before, min(natural, PIPE_WIDTH))  # print(width=) cannot exceed the console's own width
    try:
        console.print(table)
    finally:
        console.width = before


def results_table(title: str, summary: Mapping[str, Any], max_invalid_replies: int = 3) -> Table:
    """Overall numbers and the per-task-type breakdown of one evaluation, with a caption that
    says what the columns count and how many episodes ended on unreadable replies (those end
    before the env received an action, so 'env steps' is low while 'unreadable' is high)."""
    table = Table(title=title, show_lines=False)
    for column in RESULT_COLUMNS:
        table.add_column(column, justify="left" if column == "task type" else "right", no_wrap=True)

    def accepted(stats: Mapping[str, Any]) -> str:
        rate = stats.get("accepted_action_rate")
        return "-" if rate is None else pct(rate)

    def cells(stats: Mapping[str, Any]) -> list[str]:
        if not stats.get("scored", stats["n"]):  # nothing judged: no rate to show
            return [str(stats["n"]), str(stats.get("unscored", 0)), *["-"] * (len(RESULT_COLUMNS) - 3)]
        return [
            str(stats["n"]), str(stats.get("unscored", 0)), pct(stats["success_rate"]), f"{stats['mean_reward']:.3f}",
            f"{stats.get('mean_rounds', 0.0):.1f}", f"{stats['mean_steps']:.1f}",
            pct(stats.get("invalid_reply_rate", 0.0)), accepted(stats),
        ]  # fmt: skip

    for name, stats in summary["by_task_type"].items():
        table.add_row(name, *cells(stats))
    table.add_section()
    overall = cells(summary)
    overall[2] = f"[bold]{overall[2]}"
    table.add_row("[bold]all", *overall)
    notes = [f"{column}: {meaning}" for column, meaning in RESULT_COLUMNS.items() if meaning]
    statuses = {status: k for status, k in summary.get("status", {}).items() if k}
    if statuses:
        notes.append("end status: " + ", ".join(f"{status} {k}" for status, k in statuses.items()))
    ended = summary.get("end_reason", {}).get("invalid_replies", 0)
    if ended:
        notes.append(
            f"{ended} of {summary['n']} episodes ended after {max_invalid_replies} unreadable replies in a row "
            "(status failure, reason invalid_replies; the env never saw those replies)"
        )
    table.caption = "\n".join(notes)
    return table


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "run"
