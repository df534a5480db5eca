"""GenEnv's co-evolution pools in the SQL store: D_train (agent traces) and D_env (context ->
generated task with its weight), and what the agent was shown of each D_env task.

The tasks themselves are the simulator's (coevo.simulator.records): a pool row names a task by
its content-addressed id.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from coevo.store.db import Base


def _now() -> datetime:
    return datetime.now(timezone.utc)


class GenEnvTrainTrace(Base):
    """D_train: one agent completion on a task, with its reward."""

    __tablename__ = "genenv_train_pool"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(String(64))
    arm: Mapped[str] = mapped_column(String(16))
    epoch: Mapped[int] = mapped_column(Integer)
    #: on_policy (this epoch's GRPO rollouts) | static (GRPO rollouts on the fixed augmentation
    #: pool) | sampled (the sampling pass of dynamic sampling: no training) | replay (GRPO
    #: rollouts on a past task of the arm) | base (GRPO rollouts on a base task)
    source: Mapped[str] = mapped_column(String(16))
    task_id: Mapped[str] = mapped_column(String(40))
    completion: Mapped[str] = mapped_column(Text)
    reward: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    __table_args__ = (Index("ix_genenv_train_run_arm", "run_id", "arm", "epoch"),)


class GenEnvEnvSample(Base):
    """D_env: what the environment policy produced in one context, and how the agent fared."""

    __tablename__ = "genenv_env_pool"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(String(64))
    arm: Mapped[str] = mapped_column(String(16))
    epoch: Mapped[int] = mapped_column(Integer)
    task_id: Mapped[str] = mapped_column(String(40))
    context: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    output: Mapped[str] = mapped_column(Text, default="")
    p_hat: Mapped[float] = mapped_column(Float)
    n: Mapped[int] = mapped_column(Integer)
    r_env: Mapped[float] = mapped_column(Float)
    in_band: Mapped[bool] = mapped_column(Boolean)
    #: RWR weight (normalised within the update that used it); NULL when filtered out.
    weight: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    __table_args__ = (Index("ix_genenv_env_run_arm", "run_id", "arm", "epoch"),)


class GenEnvTaskShown(Base):
    """What the agent was shown for one D_env task (its family and prompt), beside the D_env
    row's context and output: together, the task as the trainer handed it to the agent, so a
    past task can be replayed from D_train. A table of its own, so that stores written before it
    stay readable."""

    __tablename__ = "genenv_task_shown"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(String(64))
    arm: Mapped[str] = mapped_column(String(16))
    epoch: Mapped[int] = mapped_column(Integer)
    task_id: Mapped[str] = mapped_column(String(40))
    family: Mapped[str] = mapped_column(String(64))
    prompt: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)

    __table_args__ = (Index("ix_genenv_shown_run_arm", "run_id", "arm", "epoch", "task_id"),)
