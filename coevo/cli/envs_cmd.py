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
    table = Table("env", "entry point", "splits")
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
    Console().print(table)
