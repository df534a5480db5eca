"""Offline re-scores of recorded episodes: what an episode's recorded actions earn under another
scoring mode (env options), kept beside the recorded steps, which are never touched.

One row per (episode, score mode); re-running a mode replaces its rows. The score mode is the
env options that define it, written canonically ("decoder=lenient", "scoring=f1"; "" for the
env's defaults), so the same options always name the same column of results.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    Boolean,
    DateTime,
    Engine,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    delete,
    select,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from coevo.store.db import Base
from coevo.store.tables import Episode, StepRecord


class Rescore(Base):
    __tablename__ = "rescores"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    episode_id: Mapped[str] = mapped_column(String(40), ForeignKey("episodes.id", ondelete="CASCADE"), index=True)
    env: Mapped[str] = mapped_column(String(64))
    env_version: Mapped[str] = mapped_column(String(32))
    score_mode: Mapped[str] = mapped_column(String(256))
    #: The end status under this mode (coevo.end_status); `unknown` when the recorded actions
    #: ran out before the env, scoring this way, ended the episode.
    status: Mapped[str] = mapped_column(String(16))
    total_reward: Mapped[float | None] = mapped_column(Float, nullable=True)
    success: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (UniqueConstraint("episode_id", "score_mode", name="uq_rescores_episode_mode"),)


@dataclass(frozen=True)
class RecordedEpisode:
    """A finished episode as recorded: what a replay needs, and what it was scored the first time."""

    id: str
    env: str
    env_version: str
    task_id: str
    seed: int
    policy: str | None
    run: str | None
    status: str
    total_reward: float
    success: bool | None
    actions: list[str]
    #: Whether it was played through the AgentGym routes (the env presented AgentGym's text).
    agentgym: bool = False


def _actions(db: Session, episode: Episode) -> list[str]:
    """The episode's whole action history, its fork ancestors' inherited steps first."""
    chain: list[tuple[Episode, int]] = []
    node: Episode | None = episode
    upto = 1 << 30
    while node is not None:
        chain.append((node, upto))
        upto = node.start_step
        node = db.get(Episode, node.parent_id) if node.parent_id else None
    actions: list[str] = []
    for node, limit in reversed(chain):
        rows = db.scalars(
            select(StepRecord.action)
            .where(StepRecord.episode_id == node.id, StepRecord.index > node.start_step, StepRecord.index <= limit)
            .order_by(StepRecord.index)
        )
        actions.extend(rows)
    return actions


def recorded_episodes(
    engine: Engine, env: str, *, run: str | None = None, policy: str | None = None, limit: int | None = None
) -> list[RecordedEpisode]:
    """The closed episodes of `env` (optionally of one run or policy tag), oldest first."""
    query = select(Episode).where(Episode.env == env, Episode.closed_at.is_not(None)).order_by(Episode.created_at)
    if run is not None:
        query = query.where(Episode.run == run)
    if policy is not None:
        query = query.where(Episode.policy == policy)
    if limit is not None:
        query = query.limit(limit)
    with Session(engine) as db:
        return [
            RecordedEpisode(
                e.id,
                e.env,
                e.env_version,
                e.task_id,
                e.seed,
                e.policy,
                e.run,
                e.status,
                e.total_reward,
                e.success,
                _actions(db, e),
                bool((e.info or {}).get("agentgym")),
            )  # fmt: skip
            for e in db.scalars(query)
        ]


def save_rescores(engine: Engine, mode: str, rows: Iterable[Mapping[str, Any]]) -> int:
    """Store one mode's re-scores (dicts: episode_id, env, env_version, status, total_reward,
    success, error), replacing that mode's earlier rows of the same episodes; returns the count."""
    rows = [dict(r) for r in rows]
    now = datetime.now(timezone.utc)
    with Session(engine) as db, db.begin():
        ids = [r["episode_id"] for r in rows]
        if ids:
            db.execute(delete(Rescore).where(Rescore.score_mode == mode, Rescore.episode_id.in_(ids)))
        db.add_all(Rescore(score_mode=mode, created_at=now, **r) for r in rows)
    return len(rows)


def load_rescores(engine: Engine, mode: str) -> dict[str, Rescore]:
    """One mode's re-scores by episode id."""
    with Session(engine) as db:
        return {r.episode_id: r for r in db.scalars(select(Rescore).where(Rescore.score_mode == mode))}
