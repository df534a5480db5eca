"""The end-of-run table, declared as columns over result rows: each trainer says what to show
(its `results_tables`), the command prints it, and a new trainer gets a table by listing
columns instead of writing rendering code."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from rich.table import Table

from coevo.training.metrics_log import Row

Justify = Literal["left", "right", "center"]


@dataclass(frozen=True)
class Column:
    header: str
    #: The cell's text for a row (a missing value is the column's business: "-" by convention).
    cell: Callable[[Row], str]
    justify: Justify = "right"


@dataclass(frozen=True)
class ResultsTable:
    columns: tuple[Column, ...]
    title: str | None = None

    def render(self, rows: Sequence[Row]) -> Table:
        table = Table(title=self.title)
        for column in self.columns:
            table.add_column(column.header, justify=column.justify)
        for row in rows:
            table.add_row(*(column.cell(row) for column in self.columns))
        return table


def field(name: str, fmt: str = "{}", missing: str = "-") -> Callable[[Row], str]:
    """A cell showing `row[name]` through `fmt` (`missing` where the row lacks it or has None)."""

    def cell(row: Row) -> str:
        value = row.get(name)
        return missing if value is None else fmt.format(value)

    return cell


def percent(name: str, missing: str = "-") -> Callable[[Row], str]:
    """A rate as a percentage with one decimal."""

    def cell(row: Row) -> str:
        value = row.get(name)
        return missing if value is None else f"{100 * value:.1f}%"

    return cell
