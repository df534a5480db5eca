"""A real uvicorn server for one env in a thread of the test process, for clients that need a
socket (MCP's and OpenEnv's own clients speak HTTP streams and WebSockets, not TestClient)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from coevo.client.launcher import free_port
from coevo.config import ServerConfig
from coevo.server import create_app


@contextmanager
def live_server(
    env: str, *, db_url: str | None = None, env_options: dict[str, Any] | None = None, **config: Any
) -> Iterator[str]:
    """Serve `env` (built with `env_options`) on a free loopback port until the block ends; yields the base URL."""
    port = free_port()
    cfg = ServerConfig(port=port, db_url=db_url, record=db_url is not None, **config)
    app = create_app(env, env_options=env_options, config=cfg)
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", ws="auto")
    )
    thread = threading.Thread(target=server.run, name=f"live-{env}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the {env} server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
