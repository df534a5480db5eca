"""Trajectory tables: one row per episode, one row per step.

Episode ids are made by the server (not the database) so the buffered writer can insert an
episode and its steps in one flush without a round trip for the key. A fork starts a new
episode whose first `start_step` steps are its parent's; replaying a session therefore walks
`parent_id` links (see `coevo.store.trajectories`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from coevo.store.db import Base


class Episode(Base):
    __tablename__ = "episodes"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(64), index=True)
    env: Mapped[str] = mapped_column(String(64), index=True)
    env_version: Mapped[str] = mapped_column(String(32), default="")
    task_id: Mapped[str] = mapped_column(String(256))
    seed: Mapped[int] = mapped_column(BigInteger)
    split: Mapped[str] = mapped_column(String(64))
    #: "running" until it ends, then its end status (`coevo.end_status`): success | failure |
    #: truncated (scored) or abandoned | env_error | policy_error | transport_error | unknown.
    status: Mapped[str] = mapped_column(String(16), default="running")
    #: What went wrong, for env_error (the env's exception) and the client-reported statuses.
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: Why the session left this episode (closed | expired | reset); NULL while it may continue,
    #: which is what lets a restarted server recover it.
    close_reason: Mapped[str | None] = mapped_column(String(16), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    total_reward: Mapped[float] = mapped_column(Float, default=0.0)
    steps: Mapped[int] = mapped_column(Integer, default=0)
    #: Fork lineage: the episode this one was copied from, and how many steps it inherited.
    parent_id: Mapped[str | None] = mapped_column(String(40), ForeignKey("episodes.id"), nullable=True)
    start_step: Mapped[int] = mapped_column(Integer, default=0)
    #: The observation and info `reset` returned (the first turn of the trajectory).
    observation: Mapped[str] = mapped_column(Text, default="")
    info: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    #: The policy tag and run name a client passed on create (NULL when it passed none); the
    #: UI filters and the leaderboards' links use them.
    policy: Mapped[str | None] = mapped_column(String(256), nullable=True)
    run: Mapped[str | None] = mapped_column(String(256), nullable=True)
    #: The env's verdict once the episode is done (info "success"/"won", else total reward >= 1);
    #: NULL while it runs or when it ended without one (truncated, abandoned).
    success: Mapped[bool | None] = mapped_column(Boolean, nullable=True)

    __table_args__ = (
        Index("ix_episodes_session_open", "session_id", "closed_at"),
        # The episode list pages newest first (keyset on created_at, id), optionally filtered:
        # each filter the UI offers has an index that keeps that order.
        Index("ix_episodes_created", "created_at", "id"),
        Index("ix_episodes_env_created", "env", "created_at", "id"),
        Index("ix_episodes_policy_created", "policy", "created_at", "id"),
        Index("ix_episodes_run_created", "run", "created_at", "id"),
        Index("ix_episodes_task", "env", "task_id"),
    )


class StepRecord(Base):
    __tablename__ = "steps"

    episode_id: Mapped[str] = mapped_column(String(40), ForeignKey("episodes.id", ondelete="CASCADE"), primary_key=True)
    #: 1-based step number within the episode's full history (forks continue their parent's count).
    index: Mapped[int] = mapped_column(Integer, primary_key=True)
    action: Mapped[str] = mapped_column(Text)
    observation: Mapped[str] = mapped_column(Text)
    reward: Mapped[float] = mapped_column(Float)
    done: Mapped[bool] = mapped_column()
    truncated: Mapped[bool] = mapped_column()
    info: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    latency_ms: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
