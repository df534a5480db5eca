"""D_train and D_env in the SQL store, per run and arm; both grow every epoch."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, delete, func, select, update
from sqlalchemy.orm import Session

from coevo.store.genenv import GenEnvEnvSample, GenEnvTrainTrace


@dataclass
class Trace:
    task_id: str
    completion: str
    reward: float


@dataclass
class EnvSample:
    task_id: str
    context: dict[str, Any]
    output: str
    p_hat: float
    n: int
    r_env: float
    in_band: bool


class Pools:
    def __init__(self, engine: Engine, run_id: str) -> None:
        self.engine = engine
        self.run_id = run_id

    def forget_from(self, arm: str, epoch: int) -> None:
        """Drop rows of epochs >= `epoch` (an interrupted epoch is redone on resume)."""
        with Session(self.engine) as db:
            for table in (GenEnvTrainTrace, GenEnvEnvSample):
                db.execute(delete(table).where(table.run_id == self.run_id, table.arm == arm,
                                               table.epoch >= epoch))
            db.commit()

    def add_traces(self, arm: str, epoch: int, source: str, traces: Iterable[Trace]) -> None:
        with Session(self.engine) as db:
            db.add_all([
                GenEnvTrainTrace(run_id=self.run_id, arm=arm, epoch=epoch, source=source,
                                 task_id=t.task_id, completion=t.completion, reward=t.reward)
                for t in traces
            ])
            db.commit()

    def add_env_samples(self, arm: str, epoch: int, samples: Iterable[EnvSample]) -> list[int]:
        rows = [
            GenEnvEnvSample(run_id=self.run_id, arm=arm, epoch=epoch, task_id=s.task_id, context=s.context,
                            output=s.output, p_hat=s.p_hat, n=s.n, r_env=s.r_env, in_band=s.in_band)
            for s in samples
        ]
        with Session(self.engine, expire_on_commit=False) as db:
            db.add_all(rows)
            db.commit()
            return [r.id for r in rows]

    def env_samples(self, arm: str, first_epoch: int = 0, in_band_only: bool = True) -> list[GenEnvEnvSample]:
        stmt = select(GenEnvEnvSample).where(
            GenEnvEnvSample.run_id == self.run_id, GenEnvEnvSample.arm == arm,
            GenEnvEnvSample.epoch >= first_epoch,
        )
        if in_band_only:
            stmt = stmt.where(GenEnvEnvSample.in_band.is_(True))
        with Session(self.engine, expire_on_commit=False) as db:
            return list(db.scalars(stmt.order_by(GenEnvEnvSample.id)))

    def set_weights(self, ids: Sequence[int], weights: Sequence[float]) -> None:
        with Session(self.engine) as db:
            for row_id, w in zip(ids, weights):
                db.execute(update(GenEnvEnvSample).where(GenEnvEnvSample.id == row_id).values(weight=float(w)))
            db.commit()

    def sizes(self, arm: str) -> tuple[int, int]:
        with Session(self.engine) as db:
            n_train = db.scalar(select(func.count()).select_from(GenEnvTrainTrace).where(
                GenEnvTrainTrace.run_id == self.run_id, GenEnvTrainTrace.arm == arm))
            n_env = db.scalar(select(func.count()).select_from(GenEnvEnvSample).where(
                GenEnvEnvSample.run_id == self.run_id, GenEnvEnvSample.arm == arm))
        return int(n_train or 0), int(n_env or 0)
