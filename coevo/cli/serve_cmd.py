"""`coevo serve ENV`: run one env server (uvicorn, one worker, loopback by default)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import typer

from coevo.cli import app


def parse_options(pairs: list[str]) -> dict[str, object]:
    """`--option key=value` pairs (see coevo.config.parse_key_values), refused as a bad parameter."""
    from coevo.config import parse_key_values

    try:
        return parse_key_values(pairs)
    except ValueError as exc:
        raise typer.BadParameter(f"--option: {exc}") from None


def stop_when_orphaned(poll_s: float = 0.5) -> threading.Thread:
    """SIGTERM this process (uvicorn's graceful shutdown, which flushes the store) once its parent
    is gone: a launcher killed without running its clean-up (SIGKILL, the OOM killer) must not
    leave its env servers running. The kernel re-parents an orphan, so the parent id changes."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os.kill(os.getpid(), signal.SIGTERM)

    thread = threading.Thread(target=watch, name="coevo-parent-watch", daemon=True)
    thread.start()
    return thread


@app.command("serve")
def serve(
    env: str = typer.Argument(..., help="Registered env name, or module:Class"),
    host: str = typer.Option(None, help="Interface to bind [default: $COEVO_HOST or 127.0.0.1]"),
    port: int = typer.Option(None, help="TCP port [default: $COEVO_PORT or 8000]"),
    db_url: str = typer.Option(None, "--db-url", help="Trajectory store URL (default $COEVO_DB_URL or ./coevo.db)"),
    option: list[str] = typer.Option([], "--option", "-o", help="Env option key=value (repeatable)"),
    max_sessions: int = typer.Option(None, help="Most live sessions (429 beyond)"),
    idle_ttl: float = typer.Option(None, help="Release sessions idle this many seconds (0: never)"),
    max_age: float = typer.Option(None, help="Release sessions older than this many seconds (0: never)"),
    admin_token: str = typer.Option(None, help="Bearer token for POST /admin/* (or $COEVO_ADMIN_TOKEN)"),
    admin_dir: str = typer.Option(
        None,
        "--admin-dir",
        help="Admin commands read paths only under this directory [default: $COEVO_ADMIN_DIR or the data dir]",
    ),
    no_record: bool = typer.Option(False, "--no-record", help="Do not record trajectories (no recovery)"),
    durability: str = typer.Option(
        None,
        help="Answer after the store commit (process), after its fsync (machine), or "
        "before writing (buffered) [default: $COEVO_DURABILITY or process]",
    ),
    log_level: str = typer.Option("info", help="uvicorn log level (access log stays off)"),
    exit_with_parent: bool = typer.Option(
        False, "--exit-with-parent", help="Shut down when the process that started this one exits (launchers)"
    ),
) -> None:
    """Serve ENV over HTTP."""
    import uvicorn

    from coevo.config import ServerConfig
    from coevo.server import create_app
    from coevo.server.transport import uvicorn_settings

    if ":" in env and os.getcwd() not in sys.path:
        # "tests.fixture_env:GuessEnv" names a module relative to where the user stands.
        sys.path.insert(0, os.getcwd())
    config = ServerConfig.from_env(
        host=host,
        port=port,
        db_url=db_url,
        max_sessions=max_sessions,
        idle_ttl_s=idle_ttl,
        max_age_s=max_age,
        admin_token=admin_token,
        admin_dir=admin_dir,
        record=False if no_record else None,
        durability=durability,
    )
    application = create_app(env, env_options=parse_options(option), config=config)
    if exit_with_parent:
        stop_when_orphaned()
    uvicorn.run(
        application,
        host=config.host,
        port=config.port,
        workers=1,
        log_level=log_level,
        access_log=False,
        timeout_graceful_shutdown=10,
        **uvicorn_settings(config.request_read_timeout_s, config.max_client_connections),
    )
