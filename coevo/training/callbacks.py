"""What happens around a run's rows, as callbacks (TRL's TrainerCallback idea): the trainer
records rows and says when the run begins and ends; progress lines and plots hang on those
events instead of being written into each trainer.

Callbacks run in the process that writes (the main one under several processes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coevo.training.metrics_log import Row

if TYPE_CHECKING:
    from coevo.training.run import TrainingRun


class TrainerCallback:
    """Override the events you need; every one does nothing by default."""

    def on_run_begin(self, run: TrainingRun) -> None:
        """The run directory is checked and its config saved (fresh or resumed)."""

    def on_evaluate(self, run: TrainingRun, at: Mapping[str, Any], rows: Sequence[Row]) -> None:
        """Held-out rows taken at point `at` were appended to the metrics log."""

    def on_record(self, run: TrainingRun, row: Row) -> None:
        """A step's row (a stage, an arm's epoch) was appended: the step is on disk."""

    def on_run_end(self, run: TrainingRun, rows: Sequence[Row]) -> None:
        """Every step is done; `rows` are the trainer's result rows."""


class CallbackHandler(TrainerCallback):
    """Calls each callback in turn."""

    def __init__(self, callbacks: Sequence[TrainerCallback] = ()) -> None:
        self.callbacks = list(callbacks)

    def add(self, callback: TrainerCallback) -> None:
        self.callbacks.append(callback)

    def on_run_begin(self, run: TrainingRun) -> None:
        for c in self.callbacks:
            c.on_run_begin(run)

    def on_evaluate(self, run: TrainingRun, at: Mapping[str, Any], rows: Sequence[Row]) -> None:
        for c in self.callbacks:
            c.on_evaluate(run, at, rows)

    def on_record(self, run: TrainingRun, row: Row) -> None:
        for c in self.callbacks:
            c.on_record(run, row)

    def on_run_end(self, run: TrainingRun, rows: Sequence[Row]) -> None:
        for c in self.callbacks:
            c.on_run_end(run, rows)


class LogRows(TrainerCallback):
    """A progress line per recorded row: `describe(row)` handed to `log`."""

    def __init__(self, describe: Callable[[Row], str], log: Callable[[str], None]) -> None:
        self.describe, self.log = describe, log

    def on_record(self, run: TrainingRun, row: Row) -> None:
        self.log(self.describe(row))


class LogHeldout(TrainerCallback):
    """A line per held-out split scored: the point, the split, the success rate, its 95% interval
    and n (the same line from every trainer)."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self.log = log

    def on_evaluate(self, run: TrainingRun, at: Mapping[str, Any], rows: Sequence[Row]) -> None:
        where = " ".join(f"{k} {v}" for k, v in at.items())
        for r in rows:
            self.log(
                f"{where} held-out {r['env']}:{r['split']}: {r['success_rate']:.3f} "
                f"[{r['ci95_low']:.3f}, {r['ci95_high']:.3f}] of {r['n']}"
            )


class OnRecord(TrainerCallback):
    """Hands every recorded row to `handle` (a command's live display)."""

    def __init__(self, handle: Callable[[Row], None]) -> None:
        self.handle = handle

    def on_record(self, run: TrainingRun, row: Row) -> None:
        self.handle(row)


class PlotAtEnd(TrainerCallback):
    """The run's figure, drawn once when the run ends: `draw(run, rows)` writes it to `path`."""

    def __init__(self, path: Path, draw: Callable[[TrainingRun, Sequence[Row], Path], Any]) -> None:
        self.path, self.draw = path, draw

    def on_run_end(self, run: TrainingRun, rows: Sequence[Row]) -> None:
        self.draw(run, rows, self.path)
