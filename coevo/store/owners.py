"""Session ownership across replicas: which server serves a session, and its heartbeat.

Servers of one env on one store (replicas behind a non-sticky Service) must never serve one
session twice: a second copy would record into the same episode and diverge from the first.
Each session has one row here: the owning server's id, its advertised address and its last
heartbeat, a time read from the database's own clock (so the servers' clocks never matter).
A server claims a session when it creates or rebuilds it; another server takes it over only
when the owner's heartbeat is older than the expiry. Every statement is one atomic INSERT or
conditional UPDATE, so two servers racing for one session cannot both win.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import Engine, Float, String, delete, insert, literal_column, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql.elements import ColumnElement

from coevo.store.db import Base


class SessionOwner(Base):
    __tablename__ = "session_owners"

    session_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    #: The owning server process (random per process).
    server_id: Mapped[str] = mapped_column(String(40), index=True)
    #: Where clients reach the owner (its advertised base URL).
    address: Mapped[str] = mapped_column(String(512))
    #: Seconds since the epoch by the database's clock at the owner's last heartbeat.
    heartbeat: Mapped[float] = mapped_column(Float)


_TABLE = SessionOwner.__table__


def db_clock(engine: Engine) -> ColumnElement[float]:
    """The database's current time as epoch seconds, in SQL."""
    if engine.dialect.name == "sqlite":
        return literal_column("((julianday('now') - 2440587.5) * 86400.0)")
    if engine.dialect.name == "postgresql":
        return literal_column("extract(epoch from clock_timestamp())::float8")
    raise NotImplementedError(f"session ownership needs SQLite or PostgreSQL, not {engine.dialect.name}")


@dataclass(frozen=True)
class Owner:
    """Another server that holds the session, and how old its heartbeat is (seconds)."""

    address: str
    age_s: float


def claim(engine: Engine, session_id: str, server_id: str, address: str, expiry_s: float) -> Owner | None:
    """Make `server_id` the owner of `session_id`: None when it is (it was free, already its
    own, or its owner's heartbeat had expired), else the live owner."""
    now = db_clock(engine)
    try:
        with engine.begin() as conn:
            conn.execute(
                insert(_TABLE).values(session_id=session_id, server_id=server_id, address=address, heartbeat=now)
            )
        return None
    except IntegrityError:
        pass  # owned: take it only if ours or expired
    with engine.begin() as conn:
        taken = conn.execute(
            update(_TABLE)
            .where(
                _TABLE.c.session_id == session_id,
                (_TABLE.c.server_id == server_id) | (_TABLE.c.heartbeat < now - expiry_s),
            )
            .values(server_id=server_id, address=address, heartbeat=now)
        ).rowcount
        if taken:
            return None
        row = conn.execute(
            select(_TABLE.c.address, (now - _TABLE.c.heartbeat).label("age")).where(_TABLE.c.session_id == session_id)
        ).first()
    if row is None:  # released between the two statements: free now
        return claim(engine, session_id, server_id, address, expiry_s)
    return Owner(row.address, float(row.age))


def heartbeat(engine: Engine, server_id: str, released: Collection[str] = ()) -> set[str]:
    """Renew every session `server_id` owns (one UPDATE), drop the `released` ones, and return
    the ids it still owns: a held session missing from them was taken over by another server."""
    with engine.begin() as conn:
        if released:
            conn.execute(delete(_TABLE).where(_TABLE.c.server_id == server_id, _TABLE.c.session_id.in_(list(released))))
        conn.execute(update(_TABLE).where(_TABLE.c.server_id == server_id).values(heartbeat=db_clock(engine)))
        return {row[0] for row in conn.execute(select(_TABLE.c.session_id).where(_TABLE.c.server_id == server_id))}
