"""In-process env servers for agent tests: the real FastAPI app behind httpx's ASGI transport,
so rollouts exercise the whole HTTP protocol without sockets or subprocesses."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx

from coevo.client import AsyncEnvClient
from coevo.config import ServerConfig
from coevo.server import create_app


@contextlib.asynccontextmanager
async def asgi_env_client(env: str, *, db_url: str | None = None, **env_options: Any) -> AsyncIterator[AsyncEnvClient]:
    """A client of `env`'s app; `db_url`: the server records into that store (and so keeps the
    per-task difficulty statistics), else it records nothing."""
    config = ServerConfig(db_url=db_url, record=True) if db_url else ServerConfig(db_url="sqlite://", record=False)
    app = create_app(env, env_options=env_options or None, config=config)
    async with app.router.lifespan_context(app):
        http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://asgi", timeout=60)
        async with AsyncEnvClient("http://asgi", http=http) as client:
            yield client
