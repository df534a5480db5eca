"""How the commands print results: percentages, an evaluation's table, file-name slugs."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rich.table import Table


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
