"""D_train and D_env in the SQL store, per run and arm; both grow every epoch. Each D_env task
also keeps what the agent was shown (family, prompt), so that past tasks can be replayed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, and_, delete, func, select, update
from sqlalchemy.orm import Session

from coevo.genenv.curriculum import rank_by_r_env
from coevo.genenv.simulator import BatchTask
from coevo.genenv.pool_tables import GenEnvEnvSample, GenEnvTaskShown, GenEnvTrainTrace


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
            for table in (GenEnvTrainTrace, GenEnvEnvSample, GenEnvTaskShown):
                db.execute(delete(table).where(table.run_id == self.run_id, table.arm == arm, table.epoch >= epoch))
            db.commit()

    def add_traces(self, arm: str, epoch: int, source: str, traces: Iterable[Trace]) -> None:
        with Session(self.engine) as db:
            db.add_all(
                [
                    GenEnvTrainTrace(
                        run_id=self.run_id,
                        arm=arm,
                        epoch=epoch,
                        source=source,
                        task_id=t.task_id,
                        completion=t.completion,
                        reward=t.reward,
                    )
                    for t in traces
                ]
            )
            db.commit()

    def add_env_samples(self, arm: str, epoch: int, samples: Iterable[EnvSample]) -> list[int]:
        rows = [
            GenEnvEnvSample(
                run_id=self.run_id,
                arm=arm,
                epoch=epoch,
                task_id=s.task_id,
                context=s.context,
                output=s.output,
                p_hat=s.p_hat,
                n=s.n,
                r_env=s.r_env,
                in_band=s.in_band,
            )
            for s in samples
        ]
        with Session(self.engine, expire_on_commit=False) as db:
            db.add_all(rows)
            db.commit()
            return [r.id for r in rows]

    def add_tasks_shown(self, arm: str, epoch: int, tasks: Iterable[BatchTask]) -> None:
        """Record what the agent was shown for the epoch's D_env tasks (see replay_tasks)."""
        with Session(self.engine) as db:
            db.add_all(
                [
                    GenEnvTaskShown(
                        run_id=self.run_id, arm=arm, epoch=epoch, task_id=t.task_id, family=t.family, prompt=t.prompt
                    )
                    for t in tasks
                ]
            )
            db.commit()

    def replay_tasks(self, arm: str, before_epoch: int) -> list[BatchTask]:
        """The arm's past tasks worth replaying, as the BatchTasks they were: those of epochs
        before `before_epoch` whose group had unequal rewards when they were fresh (0 < p_hat < 1;
        for binary rewards, exactly the groups GRPO learns from), each task once (its latest
        epoch), the latest epoch first and, within an epoch, the highest R_env (nearest alpha)
        first. Recent tasks are nearest the agent's current level, and a task's p_hat was
        measured before any training on it."""
        stmt = (
            select(GenEnvEnvSample, GenEnvTaskShown)
            .join(
                GenEnvTaskShown,
                and_(
                    GenEnvTaskShown.run_id == GenEnvEnvSample.run_id,
                    GenEnvTaskShown.arm == GenEnvEnvSample.arm,
                    GenEnvTaskShown.epoch == GenEnvEnvSample.epoch,
                    GenEnvTaskShown.task_id == GenEnvEnvSample.task_id,
                ),
            )
            .where(
                GenEnvEnvSample.run_id == self.run_id,
                GenEnvEnvSample.arm == arm,
                GenEnvEnvSample.epoch < before_epoch,
                GenEnvEnvSample.p_hat > 0,
                GenEnvEnvSample.p_hat < 1,
            )
            .order_by(GenEnvEnvSample.epoch.desc(), GenEnvEnvSample.id)
        )
        with Session(self.engine) as db:
            rows = [
                (s.epoch, s.r_env, BatchTask(s.task_id, shown.family, shown.prompt, dict(s.context), s.output))
                for s, shown in db.execute(stmt)
            ]
        return _latest_nearest_first(rows)

    def env_samples(self, arm: str, first_epoch: int = 0, in_band_only: bool = True) -> list[GenEnvEnvSample]:
        stmt = select(GenEnvEnvSample).where(
            GenEnvEnvSample.run_id == self.run_id,
            GenEnvEnvSample.arm == arm,
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
            n_train = db.scalar(
                select(func.count())
                .select_from(GenEnvTrainTrace)
                .where(GenEnvTrainTrace.run_id == self.run_id, GenEnvTrainTrace.arm == arm)
            )
            n_env = db.scalar(
                select(func.count())
                .select_from(GenEnvEnvSample)
                .where(GenEnvEnvSample.run_id == self.run_id, GenEnvEnvSample.arm == arm)
            )
        return int(n_train or 0), int(n_env or 0)


def _latest_nearest_first(rows: Sequence[tuple[int, float, BatchTask]]) -> list[BatchTask]:
    """(epoch, R_env, task) rows as tasks: the latest epoch first, the highest R_env first within
    an epoch, each task id once (where it first comes)."""
    ordered: list[BatchTask] = []
    for epoch in sorted({e for e, _, _ in rows}, reverse=True):
        of_epoch = [(r, t) for e, r, t in rows if e == epoch]
        ordered += [of_epoch[i][1] for i in rank_by_r_env([r for r, _ in of_epoch])]
    unique: dict[str, BatchTask] = {}
    for task in ordered:
        unique.setdefault(task.task_id, task)
    return list(unique.values())
