"""One trainer run's plumbing, which every trainer holds one of: its directory, its metrics log
and its callbacks. The trainer keeps the algorithm; this keeps where its results go and what
happens around them, so both trainers (and the next) write, resume and report alike."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from coevo.trainer_config import TrainerConfig
from coevo.training.callbacks import CallbackHandler, TrainerCallback
from coevo.training.heldout_hook import HELDOUT, ScoredSplit, heldout_rows
from coevo.training.metrics_log import MetricsLog, Row
from coevo.training.run_directory import RunDirectory


class TrainingRun:
    def __init__(
        self,
        config: TrainerConfig,
        directory: RunDirectory,
        *,
        writer: bool = True,
        callbacks: Sequence[TrainerCallback] = (),
        default_kind: str | None = None,
    ) -> None:
        """`writer`: whether this process writes files and runs callbacks (the main one under
        several processes; the others train only). `default_kind`: the kind of rows recorded
        without a "kind" field."""
        self.config, self.dir, self.writer = config, directory, writer
        self.metrics = MetricsLog(directory.metrics, default_kind=default_kind)
        self.callbacks = CallbackHandler(callbacks)

    def begin(self) -> None:
        """Refuse a directory that holds a run with another config, save this one, tell the
        callbacks. Every process checks (each must refuse alike); the writer saves."""
        self.dir.root.mkdir(parents=True, exist_ok=True)
        self.dir.begin(self.config, write=self.writer)
        if self.writer:
            self.callbacks.on_run_begin(self)

    def record(
        self,
        row: Row | None,
        *,
        at: Mapping[str, Any] | None = None,
        heldout: Iterable[ScoredSplit | Mapping[str, Any]] = (),
    ) -> None:
        """Append the held-out rows taken at point `at`, then the step's `row`, in one atomic
        write (a step is on disk whole or not at all); callbacks hear of both."""
        if not self.writer:
            return
        scored = heldout_rows(at or {}, heldout)
        self.metrics.append([*scored, *([row] if row is not None else [])])
        if scored:
            self.callbacks.on_evaluate(self, at or {}, scored)
        if row is not None:
            self.callbacks.on_record(self, row)

    def end(self, rows: Sequence[Row]) -> None:
        if self.writer:
            self.callbacks.on_run_end(self, rows)

    def heldout(self) -> list[Row]:
        """The held-out rows so far, in the order they were taken."""
        return self.metrics.rows(HELDOUT)
