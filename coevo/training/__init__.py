"""The trainers' shared run plumbing, in TRL's shape: a config (coevo.trainer_config) and a
trainer per algorithm, and everything around the algorithm here, once.

- `RunDirectory`: where a run keeps config.json and metrics.jsonl, the resume check against the
  saved config, atomic JSON writes (state files);
- `MetricsLog`: metrics.jsonl, appended atomically (a stage's held-out rows and its own row land
  together or not at all), read back by kind, a torn last line repaired;
- `TrainerCallback` and `CallbackHandler`: what happens around a recorded row and at the end of a
  run (progress lines, held-out lines, plots), as callbacks instead of code in each trainer;
- `heldout_rows`: held-out scores at a point of the run (a stage, an arm's epoch) as "heldout"
  rows of the metrics log;
- `ResultsTable`: the end-of-run table, declared as columns over the metrics rows.

`TrainingRun` ties them together for a trainer. A new trainer's recipe is in CONTRIBUTING.md.
Nothing here knows HTTP, envs or a trainer (the core layer imports none of them).
"""

from coevo.training.callbacks import CallbackHandler, LogHeldout, LogRows, OnRecord, PlotAtEnd, TrainerCallback
from coevo.training.heldout_hook import ScoredSplit, heldout_rows
from coevo.training.metrics_log import MetricsLog
from coevo.training.results_table import Column, ResultsTable
from coevo.training.run import TrainingRun
from coevo.training.run_directory import ConfigMismatch, RunDirectory, write_json

__all__ = [
    "CallbackHandler",
    "Column",
    "ConfigMismatch",
    "OnRecord",
    "LogHeldout",
    "LogRows",
    "MetricsLog",
    "PlotAtEnd",
    "ResultsTable",
    "RunDirectory",
    "ScoredSplit",
    "TrainerCallback",
    "TrainingRun",
    "heldout_rows",
    "write_json",
]
