"""The simulator's ledger in the SQL store: every valid task it generated (`sim_tasks`) and every
generation attempt, valid or not (`sim_generations`).

Generated tasks are content-addressed (the id is a hash of what the agent sees and how it is
scored), so a task id recorded anywhere — an episode row, a trainer's pool, a log — is enough to
replay the episode exactly on any server that shares the store. The trainer's own tables (its
pools) live with the trainer (coevo.genenv.pool_tables).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Engine,
    Integer,
    String,
    Text,
    func,
    select,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column

from coevo.store.db import Base


def _now() -> datetime:
    return datetime.now(timezone.utc)


class SimTaskRecord(Base):
    """One valid generated task; `body` is the full task (prompt, answer, checker, tools)."""

    __tablename__ = "sim_tasks"

    task_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    family: Mapped[str] = mapped_column(String(64), index=True)
    checker: Mapped[str] = mapped_column(String(16))
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, index=True)


class SimGenerationRecord(Base):
    """One attempt of the environment policy, valid or not (the validity gate's ledger)."""

    __tablename__ = "sim_generations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    task_id: Mapped[str | None] = mapped_column(String(40), nullable=True, index=True)
    valid: Mapped[bool] = mapped_column(Boolean)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    backend: Mapped[str] = mapped_column(String(32))
    policy_version: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(BigInteger)
    #: What the policy was conditioned on (knobs, or base task ids and difficulty context).
    context: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    #: The raw generation (LLM text; the knob sample for the parametric policy).
    output: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


# ---------------------------------------------------------------------------- access helpers
def put_task(engine: Engine, task_id: str, family: str, checker: str, body: dict[str, Any]) -> None:
    """Record a task once; a second writer of the same content-addressed id is a no-op."""
    with Session(engine) as db:
        if db.get(SimTaskRecord, task_id) is not None:
            return
        db.add(SimTaskRecord(task_id=task_id, family=family, checker=checker, body=body))
        try:
            db.commit()
        except IntegrityError:  # another process recorded the same task first
            db.rollback()


def get_task_body(engine: Engine, task_id: str) -> dict[str, Any] | None:
    with Session(engine) as db:
        row = db.get(SimTaskRecord, task_id)
        return None if row is None else dict(row.body)


def count_tasks(engine: Engine) -> int:
    with Session(engine) as db:
        return int(db.scalar(select(func.count()).select_from(SimTaskRecord)) or 0)


def list_task_ids(engine: Engine, offset: int = 0, limit: int | None = None) -> list[str]:
    """Recorded task ids in recording order (then id, for ties), so pages are stable."""
    stmt = select(SimTaskRecord.task_id).order_by(SimTaskRecord.created_at, SimTaskRecord.task_id)
    stmt = stmt.offset(offset)
    if limit is not None:
        stmt = stmt.limit(limit)
    with Session(engine) as db:
        return list(db.scalars(stmt))


def add_generations(engine: Engine, rows: list[SimGenerationRecord]) -> list[int]:
    """Insert generation attempts; returns their ids in order."""
    with Session(engine, expire_on_commit=False) as db:
        db.add_all(rows)
        db.commit()
        return [row.id for row in rows]
