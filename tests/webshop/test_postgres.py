"""A catalog built into PostgreSQL and served from there."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from coevo.envs.registry import make
from coevo.envs.webshop.tasks import Manifest, build

pytestmark = pytest.mark.postgres
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.fixture
def pg_schema_url() -> Iterator[str]:
    explicit = os.environ.get("COEVO_TEST_POSTGRES_URL")
    base = explicit or DEFAULT_PG
    try:
        admin = create_engine(base)
        with admin.connect() as conn:
            conn.execute(text("select 1"))
    except Exception:
        if explicit:
            raise
        pytest.skip("no PostgreSQL on 127.0.0.1:5432")
    schema = f"coevo_ws_{secrets.token_hex(5)}"
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        yield f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def test_catalog_in_postgres(pg_schema_url: str, tmp_path: Path) -> None:
    manifest = build(tmp_path / "pg", products=150, seed=4, db_url=pg_schema_url)
    assert manifest.catalog.startswith("postgresql") and not (tmp_path / "pg" / "catalog.sqlite").exists()
    assert Manifest.read(tmp_path / "pg").catalog_url(tmp_path / "pg") == pg_schema_url
    build(tmp_path / "lite", products=150, seed=4)
    pg = make("webshop", data_dir=str(tmp_path / "pg"))
    lite = make("webshop", data_dir=str(tmp_path / "lite"))
    for task in ["0", "42"]:
        assert pg.reset(task_id=task).observation == lite.reset(task_id=task).observation
        while not pg.done:
            action = pg.expert_action()
            assert action is not None
            step, same = pg.step(action), lite.step(action)
            assert step.observation == same.observation
        assert step.reward == 1.0
