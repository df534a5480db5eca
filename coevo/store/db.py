"""Engine construction and the declarative base every table module shares."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from sqlalchemy import Connection, Engine, Table, create_engine, event, inspect, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import DeclarativeBase, sessionmaker
from sqlalchemy.pool import StaticPool

DEFAULT_SQLITE = "coevo.db"


class Base(DeclarativeBase):
    """All coevo tables; `Base.metadata.create_all(engine)` creates what is imported."""

    #: SQLAlchemy types `__table__` as any FromClause; every class here maps a plain Table.
    __table__: ClassVar[Table]


def default_db_url(explicit: str | None = None) -> str:
    """--db-url wins, then $COEVO_DB_URL, then a SQLite file in the working directory."""
    if explicit:
        return explicit
    return os.environ.get("COEVO_DB_URL") or f"sqlite:///{Path(DEFAULT_SQLITE).resolve()}"


def _sqlite_pragmas(synchronous: str) -> Callable[[Any, Any], None]:
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        # WAL lets readers (eval, export) run while a server writes. In WAL mode a commit has
        # written its pages to the WAL file: NORMAL survives a crash of the process (the OS
        # has the pages) but may lose the last commits to an OS crash or power loss; FULL
        # fsyncs the WAL at every commit, which survives those too.
        cursor.execute("PRAGMA busy_timeout=10000")  # first: switching to WAL can wait on a lock
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.close()

    return on_connect


def _postgres_synchronous_commit(dbapi_connection: Any, _record: Any) -> None:
    # A server configured with synchronous_commit=off acknowledges commits before their WAL is
    # on disk; fsync=True asks for the flush on this engine's connections whatever the default.
    with dbapi_connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO on")
    dbapi_connection.commit()


def make_engine(url: str | None = None, *, create: bool = True, fsync: bool = False) -> Engine:
    """An engine for `url` (see `default_db_url`); creates the imported tables unless told not to.

    Every commit survives a crash of this process. `fsync=True` also makes it survive a crash
    of the machine: SQLite fsyncs its WAL at each commit (synchronous=FULL), PostgreSQL waits
    for its WAL flush (synchronous_commit=on, PostgreSQL's own default).
    """
    url = default_db_url(url)
    if url.startswith("sqlite"):
        memory = url in ("sqlite://", "sqlite:///:memory:") or "mode=memory" in url
        # An in-memory database lives in one connection: share it across threads, or every
        # pooled connection would see an empty database of its own.
        engine = create_engine(url, connect_args={"check_same_thread": False}, poolclass=StaticPool if memory else None)
        event.listen(engine, "connect", _sqlite_pragmas("FULL" if fsync else "NORMAL"))
    else:
        engine = create_engine(url, pool_pre_ping=True)
        if fsync and engine.dialect.name == "postgresql":
            event.listen(engine, "connect", _postgres_synchronous_commit)
    if create:
        create_tables(engine)
    return engine


def create_tables(engine: Engine, attempts: int = 5) -> None:
    """`create_all`, safe when several processes open the same new database at once (`coevo
    demo` starts a server per env on one SQLite file). `create_all` checks, then creates, so
    unserialized racers lose to each other's CREATE ("table ... already exists"); here the
    check and the creates run under one database-wide lock (`_creation_lock`), and the loser
    of a race finds every table made. Retries remain for databases without such a lock. A
    store written by an older release is then brought up to date (`coevo.store.migrate`)."""
    from coevo.store.migrate import upgrade

    for attempt in range(attempts):
        try:
            with engine.connect() as conn:
                if not set(Base.metadata.tables) <= set(inspect(conn).get_table_names()):
                    _creation_lock(conn)  # only when something is missing: a read-only store opens
                    Base.metadata.create_all(conn)
                    conn.commit()
            upgrade(engine)
            return
        except DBAPIError as exc:
            message = str(exc.orig).lower()
            if attempt == attempts - 1 or ("already exists" not in message and "duplicate" not in message):
                raise


#: pg_advisory_xact_lock's key for table creation (any fixed 64-bit number; "coevo" in ASCII).
_POSTGRES_CREATE_LOCK = 0x636F65766F


def _creation_lock(conn: Connection) -> None:
    """Hold the database's write lock until `conn` commits: SQLite's BEGIN IMMEDIATE (others
    wait up to busy_timeout), a transaction-scoped advisory lock on PostgreSQL, whose DDL is
    transactional. Other dialects go unlocked and rely on `create_tables`' retries."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    elif conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _POSTGRES_CREATE_LOCK})


def make_sessionmaker(engine: Engine) -> sessionmaker:
    return sessionmaker(engine, expire_on_commit=False)
