"""The read-only `/web` pages every env server mounts (as OpenEnv serves one per env): the
episode list and trajectories of that server's env, from the store it records to. They know no
env: the server passes its env's name and its store."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter
from fastapi.staticfiles import StaticFiles
from sqlalchemy import Engine

from coevo.ui.episode_routes import build_episode_router
from coevo.ui.pages import STATIC, LazyStore

WEB = "/web"


def build_web_router(env: str, engine: Callable[[], Engine | None], where: str = "this server") -> APIRouter:
    """`engine`: the server's store (None when it records nothing: the pages say so)."""
    router = build_episode_router(LazyStore(engine, where), env=env, list_path=WEB)
    router.routes.append(_static_mount())
    return router


def _static_mount():  # type: ignore[no-untyped-def]
    from starlette.routing import Mount

    return Mount(f"{WEB}/static", app=StaticFiles(directory=STATIC), name="web-static")
