"""The app factory: one FastAPI app serves one env, given by registry name or "module:Class"."""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from fastapi import FastAPI

from coevo import __version__
from coevo.config import ServerConfig
from coevo.server.admin import build_admin_router
from coevo.server.compat import build_compat_router
from coevo.server.errors import BodyTooLarge, UnsupportedMediaType, install_error_handlers
from coevo.server.hot_step import HotStepMiddleware, HotStepSwitch
from coevo.server.limits import BodyLimitMiddleware
from coevo.server.openapi import install_exact_openapi
from coevo.server.openenv_routes import build_openenv_router
from coevo.server.routes import build_router
from coevo.server.runtime import EnvRuntime
from coevo.server.service import EnvService
from coevo.server.unhandled import UnhandledErrorMiddleware
from coevo.ui.env_pages import build_web_router


def _make_writer(config: ServerConfig):  # type: ignore[no-untyped-def]
    if not config.record:
        return None
    from coevo.store import owners  # noqa: F401  (the table create_all makes)
    from coevo.store.db import make_engine
    from coevo.store.writer import TrajectoryWriter  # imports the tables create_all makes

    return TrajectoryWriter(
        make_engine(config.db_url, fsync=config.durability == "machine"),
        interval_s=config.flush_interval_s,
        max_rows=config.flush_max_rows,
    )


def create_app(env: str, *, env_options: dict[str, Any] | None = None, config: ServerConfig | None = None) -> FastAPI:
    """A FastAPI app serving `env`. Shared env data is loaded now, so a bad env fails fast.

    `config` defaults to `ServerConfig.from_env()` (COEVO_* variables over the defaults).
    """
    config = config or ServerConfig.from_env()
    runtime = EnvRuntime(env, env_options, threads=config.env_threads, inline_below_s=config.inline_env_below_s)
    service = EnvService(runtime, config, _make_writer(config))

    mcp_running: list[Any] = []

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        service.start()
        try:
            async with AsyncExitStack() as stack:
                for running in mcp_running:
                    await stack.enter_async_context(running())
                yield
        finally:
            await service.stop()

    app = FastAPI(
        title=f"coevo env server: {runtime.name}",
        version=__version__,
        description=(
            f"Leased sessions of the `{runtime.name}` environment "
            f"(action format: {runtime.env_cls.action_format}). "
            'Every error is JSON `{"error": {"code", "message"}}`.'
        ),
        lifespan=lifespan,
        telemetry=None if config.telemetry else {"tracing": False, "metrics": False, "logs": False},
    )
    app.state.service = service
    install_exact_openapi(app)
    install_error_handlers(app, service.metrics)
    # The step route's fast path (server/hot_step.py): added first, so it is the innermost
    # middleware and every one added after it (the body checks below included) wraps it.
    app.state.hot_step = HotStepSwitch()
    app.add_middleware(HotStepMiddleware, service=service, switch=app.state.hot_step)
    # Runs inside the body checks: it answers what no handler took.
    app.add_middleware(UnhandledErrorMiddleware, on_error=service.metrics.error)
    app.add_middleware(
        BodyLimitMiddleware,
        max_body_bytes=config.max_body_bytes,
        on_reject=lambda: service.metrics.error(413, BodyTooLarge.code),
        on_media_type=lambda: service.metrics.error(415, UnsupportedMediaType.code),
        on_invalid=service.metrics.error,
    )
    app.include_router(build_router(service))
    app.include_router(build_admin_router(service))
    compat = build_compat_router(service)
    # OpenEnv's /reset and /step share AgentGym's paths: its router goes first and hands
    # AgentGym-shaped bodies on (server/openenv_routes.py).
    app.include_router(build_openenv_router(service, compat))
    app.include_router(compat)
    # Read-only pages of this env's recorded episodes (coevo.ui knows no env: it gets the name).
    app.include_router(build_web_router(runtime.name, lambda: service.writer.engine if service.writer else None))
    if importlib.util.find_spec("mcp") is not None:  # the `mcp` extra
        from coevo.server.mcp_server import install_mcp

        mcp_running.append(install_mcp(app, service))
    return app
