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
async def asgi_env_client(env: str, **env_options: Any) -> AsyncIterator[AsyncEnvClient]:
    app = create_app(env, env_options=env_options or None, config=ServerConfig(db_url="sqlite://", record=False))
    async with app.router.lifespan_context(app):
        http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://asgi", timeout=60)
        async with AsyncEnvClient("http://asgi", http=http) as client:
            yield client
