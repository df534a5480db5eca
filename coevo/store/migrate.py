"""Bringing a store written by an older release up to the current tables, in place.

`create_all` makes missing tables but never alters one that exists, so a store created before a
column was added would fail at its first insert. Each migration here is additive (a nullable
column, an index) and idempotent: every process that opens the store runs `upgrade`, and one
that loses a race to another's ALTER sees the column on its next look.
"""

from __future__ import annotations

from sqlalchemy import Column, Engine, Table, inspect, text
from sqlalchemy.exc import DBAPIError

from coevo.store.db import Base

#: Columns added to `episodes` after its first release; all nullable, so old rows stay valid.
ADDED_EPISODE_COLUMNS = ("policy", "run", "success")


def _add_column(engine: Engine, table: Table, column: Column) -> None:
    kind = column.type.compile(dialect=engine.dialect)
    preparer = engine.dialect.identifier_preparer
    statement = f"ALTER TABLE {preparer.format_table(table)} ADD COLUMN {preparer.format_column(column)} {kind}"
    try:
        with engine.begin() as conn:
            conn.execute(text(statement))
    except DBAPIError as exc:
        message = str(exc.orig).lower()
        if "duplicate" not in message and "already exists" not in message:
            raise


def upgrade(engine: Engine) -> list[str]:
    """Add what an older `episodes` table lacks (columns, then the indexes that use them);
    returns the columns it added."""
    table = Base.metadata.tables.get("episodes")  # registered only where the tables are imported
    if table is None:
        return []
    inspector = inspect(engine)
    if not inspector.has_table(table.name):
        return []
    present = {column["name"] for column in inspector.get_columns(table.name)}
    added = []
    for name in ADDED_EPISODE_COLUMNS:
        if name not in present:
            _add_column(engine, table, table.c[name])
            added.append(name)
    indexes = {index["name"] for index in inspect(engine).get_indexes(table.name)}
    for index in table.indexes:
        if index.name not in indexes:
            try:
                index.create(engine, checkfirst=True)
            except DBAPIError as exc:
                if "already exists" not in str(exc.orig).lower():
                    raise
    return added
