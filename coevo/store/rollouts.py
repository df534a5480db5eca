"""Agent-side trajectories: what evaluation, the demo and AgentEvol's exploration produced.

The server's `episodes`/`steps` tables record what the env saw (actions, observations). These
tables record what the agent saw and wrote — the whole chat with its thoughts and invalid
replies, the policy, the outcome — grouped into runs (one `coevo eval`, one exploration round).
Records are plain dicts (see `coevo.client.trajectory.Trajectory.to_record`), so the store does
not depend on the client package.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, DateTime, Engine, Float, ForeignKey, Integer, String, Text, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from coevo.store.db import Base


def _now() -> datetime:
    return datetime.now(timezone.utc)


class RolloutRun(Base):
    __tablename__ = "rollout_runs"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(256), index=True)
    #: eval | demo | bc | explore | bench ...
    kind: Mapped[str] = mapped_column(String(32), index=True)
    policy: Mapped[str] = mapped_column(String(256))
    config: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    summary: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class RolloutTrajectory(Base):
    __tablename__ = "rollout_trajectories"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    run_id: Mapped[str] = mapped_column(String(40), ForeignKey("rollout_runs.id", ondelete="CASCADE"), index=True)
    env: Mapped[str] = mapped_column(String(64), index=True)
    task_id: Mapped[str] = mapped_column(String(256))
    split: Mapped[str | None] = mapped_column(String(64), nullable=True)
    seed: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    sample: Mapped[int] = mapped_column(Integer, default=0)
    policy: Mapped[str] = mapped_column(String(256))
    #: The end status (coevo.end_status); `end_reason` says what ended it, `error` what went wrong.
    status: Mapped[str] = mapped_column(String(16))
    end_reason: Mapped[str | None] = mapped_column(String(32), nullable=True)
    env_version: Mapped[str | None] = mapped_column(String(32), nullable=True)
    score_mode: Mapped[str | None] = mapped_column(String(256), nullable=True)
    success: Mapped[bool] = mapped_column(Boolean, index=True)
    reward: Mapped[float] = mapped_column(Float)
    steps: Mapped[int] = mapped_column(Integer)
    rounds: Mapped[int] = mapped_column(Integer)
    task_type: Mapped[str | None] = mapped_column(String(128), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    duration_s: Mapped[float] = mapped_column(Float, default=0.0)
    prompt_messages: Mapped[int] = mapped_column(Integer, default=2)
    messages: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    turns: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    task_info: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


_RECORD_FIELDS = (
    "env", "task_id", "split", "seed", "sample", "policy", "status", "success", "reward", "steps",
    "rounds", "task_type", "error", "duration_s", "prompt_messages", "messages", "turns", "task_info",
    "end_reason", "env_version", "score_mode",
)  # fmt: skip


def create_run(engine: Engine, *, name: str, kind: str, policy: str, config: Mapping[str, Any] | None = None) -> str:
    run_id = uuid.uuid4().hex
    with Session(engine) as db, db.begin():
        db.add(RolloutRun(id=run_id, name=name, kind=kind, policy=policy, config=dict(config or {})))
    return run_id


def save_trajectories(engine: Engine, run_id: str, records: Iterable[Mapping[str, Any]]) -> int:
    """Insert trajectory records (dicts with the Trajectory fields) under a run; returns the count."""
    rows = []
    for record in records:
        row = {k: record.get(k) for k in _RECORD_FIELDS}
        row["seed"] = int(row["seed"]) if row["seed"] is not None else None
        row["sample"] = row["sample"] or 0
        row["success"] = bool(row["success"])
        rows.append(RolloutTrajectory(run_id=run_id, **row))
    with Session(engine) as db, db.begin():
        db.add_all(rows)
    return len(rows)


def finish_run(engine: Engine, run_id: str, summary: Mapping[str, Any]) -> None:
    with Session(engine) as db, db.begin():
        run = db.get(RolloutRun, run_id)
        if run is None:
            raise KeyError(f"no rollout run {run_id!r}")
        run.summary, run.finished_at = dict(summary), _now()


def load_trajectories(
    engine: Engine,
    *,
    run_id: str | None = None,
    env: str | None = None,
    success: bool | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """Trajectory records, oldest first, filtered by run, env and outcome."""
    query = select(RolloutTrajectory).order_by(RolloutTrajectory.id)
    if run_id is not None:
        query = query.where(RolloutTrajectory.run_id == run_id)
    if env is not None:
        query = query.where(RolloutTrajectory.env == env)
    if success is not None:
        query = query.where(RolloutTrajectory.success == success)
    if limit is not None:
        query = query.limit(limit)
    with Session(engine) as db:
        return [{k: getattr(row, k) for k in _RECORD_FIELDS} for row in db.scalars(query)]


def list_runs(engine: Engine, *, kind: str | None = None) -> list[dict[str, Any]]:
    query = select(RolloutRun).order_by(RolloutRun.created_at)
    if kind is not None:
        query = query.where(RolloutRun.kind == kind)
    with Session(engine) as db:
        return [
            {
                "id": r.id, "name": r.name, "kind": r.kind, "policy": r.policy, "config": r.config,
                "summary": r.summary, "created_at": r.created_at, "finished_at": r.finished_at,
            }
            for r in db.scalars(query)
        ]  # fmt: skip
