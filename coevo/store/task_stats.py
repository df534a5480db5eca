"""Per-task difficulty: how many scored episodes of each task each policy tag finished, and how
many it solved.

One row per (env, task, policy tag), incremented once per episode the env judged (success,
failure or truncated; coevo.end_status) in the writer's transaction that records its last
step: O(1) per finished episode, atomic on PostgreSQL across replicas (an upsert that adds to
the row), kept across restarts because it is the store. Episodes without a verdict never count:
a task is not "hard" because its server crashed. Untagged episodes count under policy "".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, DateTime, Engine, Integer, String, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, mapped_column

from coevo.intervals import wilson_interval
from coevo.store.db import Base

#: The policy tag untagged episodes count under.
UNTAGGED = ""


class TaskStat(Base):
    __tablename__ = "task_stats"

    env: Mapped[str] = mapped_column(String(64), primary_key=True)
    task_id: Mapped[str] = mapped_column(String(256), primary_key=True)
    policy: Mapped[str] = mapped_column(String(256), primary_key=True)
    episodes: Mapped[int] = mapped_column(Integer, default=0)
    successes: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


_TABLE = TaskStat.__table__


def add_outcomes(conn: Connection, rows: Iterable[Mapping[str, Any]]) -> None:
    """Add episodes and successes to their rows (dicts with env, task_id, policy, episodes,
    successes, updated_at), creating the missing rows; one statement for all of them."""
    rows = list(rows)
    if not rows:
        return
    name = conn.dialect.name
    if name not in ("postgresql", "sqlite"):
        raise NotImplementedError(f"task statistics need PostgreSQL or SQLite, not {name}")
    insert = postgresql.insert(_TABLE) if name == "postgresql" else sqlite.insert(_TABLE)
    statement = insert.on_conflict_do_update(
        index_elements=[_TABLE.c.env, _TABLE.c.task_id, _TABLE.c.policy],
        set_={
            "episodes": _TABLE.c.episodes + insert.excluded.episodes,
            "successes": _TABLE.c.successes + insert.excluded.successes,
            "updated_at": insert.excluded.updated_at,
        },
    )
    conn.execute(statement, rows)


@dataclass(frozen=True)
class Difficulty:
    """One task's record for one policy tag (or all of them pooled)."""

    task_id: str
    episodes: int
    successes: int

    @property
    def success_rate(self) -> float:
        return self.successes / self.episodes

    def interval(self) -> tuple[float, float]:
        """The Wilson 95% interval of the success rate."""
        return wilson_interval(self.successes, self.episodes)


def task_difficulty(engine: Engine, env: str, policy: str | None, min_episodes: int = 1) -> dict[str, Difficulty]:
    """Every task of `env` with at least `min_episodes` (>= 1) scored episodes under `policy`
    (None: every tag pooled), by task id."""
    episodes, successes = func.sum(_TABLE.c.episodes), func.sum(_TABLE.c.successes)
    query = select(_TABLE.c.task_id, episodes, successes).where(_TABLE.c.env == env)
    if policy is not None:
        query = query.where(_TABLE.c.policy == policy)
    query = query.group_by(_TABLE.c.task_id).having(episodes >= max(1, min_episodes))
    with engine.connect() as conn:
        return {row[0]: Difficulty(row[0], int(row[1]), int(row[2])) for row in conn.execute(query)}
