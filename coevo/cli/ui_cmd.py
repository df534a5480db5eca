"""`coevo ui`: the web pages over the store, the run folders and live env servers."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from coevo.cli import app


@app.command("ui")
def ui(
    host: str = typer.Option("127.0.0.1", help="Interface to bind (anything but loopback needs --admin-token to play)"),
    port: int = typer.Option(8800, help="TCP port"),
    db_url: str = typer.Option(None, "--db-url", help="SQL store (default $COEVO_DB_URL or ./coevo.db)"),
    runs: Path = typer.Option(Path("runs"), "--runs", help="Folder of run outputs (eval/demo results, trainer runs)"),
    server: list[str] = typer.Option(
        [],
        "--server",
        help="Base URL of an env server to show and play on (repeatable; or $COEVO_UI_SERVERS, comma-separated)",
    ),
    admin_token: str = typer.Option(
        None, help="Token that play and fork need when bound beyond loopback (or $COEVO_ADMIN_TOKEN)"
    ),
) -> None:
    """Serve the web pages: episodes, leaderboards, training runs, servers and play."""
    import uvicorn

    from coevo.ui.app import UISettings, create_ui_app

    servers = list(server) or [u.strip() for u in os.environ.get("COEVO_UI_SERVERS", "").split(",") if u.strip()]
    settings = UISettings(
        db_url=db_url, runs_dir=runs, servers=servers, host=host,
        admin_token=admin_token or os.environ.get("COEVO_ADMIN_TOKEN") or None,
    )  # fmt: skip
    if not settings.loopback and not settings.admin_token:
        typer.echo(f"coevo ui on {host}: no admin token, so play and fork are disabled", err=True)
    uvicorn.run(create_ui_app(settings), host=host, port=port, log_level="warning")
