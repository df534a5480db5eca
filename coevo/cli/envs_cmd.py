"""`coevo envs`: list the registered environments."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from coevo.cli import app


@app.command("envs")
def list_envs(
    load: bool = typer.Option(
        True, "--load/--no-load", help="Load each env to show its splits (the first load builds an env's caches)"
    ),
) -> None:
    """List registered environments and their splits (task counts)."""
    from coevo.envs import registry

    if load:
        Console(stderr=True).print("[dim]loading each env for its splits (--no-load lists names only)[/dim]")
    from coevo.cli.tables import print_table

    table = Table("env", "splits")
    entry_points = [registry.spec(name).entry_point for name in registry.names()]
    # The entry point is a name to copy: never wrapped or cut; the splits wrap in a narrow terminal.
    table.add_column("entry point", no_wrap=True, min_width=max(map(len, entry_points), default=0))
    table.columns.insert(1, table.columns.pop())
    for name in registry.names():
        s = registry.spec(name)
        splits = ""
        if load:
            try:
                env = registry.make(name)
                splits = ", ".join(f"{k}={v}" for k, v in env.splits().items())
            except Exception as exc:  # a broken optional env must not hide the others
                splits = f"[red]unavailable: {exc}[/red]"
        table.add_row(name, s.entry_point, splits)
    print_table(Console(), table)
