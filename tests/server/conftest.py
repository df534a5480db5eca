"""Fixtures for server tests: apps on a temporary SQLite file or a private PostgreSQL schema."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from coevo.config import ServerConfig
from coevo.server import create_app

DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def _pg_base_url() -> str | None:
    """PostgreSQL for tests: $COEVO_TEST_POSTGRES_URL (CI sets it: must work), else the local
    default if it answers, else None (tests that need it skip)."""
    explicit = os.environ.get("COEVO_TEST_POSTGRES_URL")
    url = explicit or DEFAULT_PG
    try:
        engine = create_engine(url)
        with engine.connect() as conn:
            conn.execute(text("select 1"))
        engine.dispose()
        return url
    except Exception:
        if explicit:
            raise
        return None


@pytest.fixture(scope="session")
def pg_base_url() -> str:
    url = _pg_base_url()
    if url is None:
        pytest.skip("no PostgreSQL on 127.0.0.1:5432 and COEVO_TEST_POSTGRES_URL unset")
    return url


@pytest.fixture
def pg_url(pg_base_url: str) -> Iterator[str]:
    """A URL whose connections live in a fresh schema, dropped afterwards (parallel-safe)."""
    schema = f"coevo_t_{secrets.token_hex(6)}"
    admin = create_engine(pg_base_url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in pg_base_url else "?"
    try:
        yield f"{pg_base_url}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'store.db'}"


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest) -> str:
    """Each test using this runs on both stores."""
    name = "sqlite_url" if request.param == "sqlite" else "pg_url"
    return request.getfixturevalue(name)


@contextmanager
def serve(
    env: str = "guess",
    *,
    db_url: str | None = None,
    env_options: dict[str, Any] | None = None,
    raise_server_exceptions: bool = True,
    **config: Any,
) -> Iterator[TestClient]:
    """An app for `env` behind a TestClient, lifespan running (writer and reaper started)."""
    cfg = ServerConfig(db_url=db_url, record=db_url is not None, **config)
    app = create_app(env, env_options=env_options, config=cfg)
    with TestClient(app, raise_server_exceptions=raise_server_exceptions) as client:
        yield client


@pytest.fixture
def make_server() -> Callable[..., Any]:
    return serve
