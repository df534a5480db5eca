"""AgentEvol's end-of-run table, declared over its stage rows: the held-out evaluation after
each stage, with what the stage trained on (`coevo agentevol` prints it)."""

from __future__ import annotations

from coevo.training.metrics_log import Row
from coevo.training.results_table import Column, ResultsTable, field, percent


def _interval(row: Row) -> str:
    if "ci95_low" not in row:
        return "-"
    return f"{100 * row['ci95_low']:.1f}-{100 * row['ci95_high']:.1f}%"


STAGES = ResultsTable(
    (
        Column("stage", field("stage"), "left"),
        Column("n", field("eval_n")),
        Column("success", percent("success_rate")),
        Column("95% CI", _interval),
        Column("mean reward", field("mean_reward", "{:.3f}")),
        Column("mean steps", field("mean_steps", "{:.1f}")),
        Column("accepted actions", percent("accepted_action_rate")),
        Column("train examples", field("train_examples")),
        Column("train loss", field("train_loss", "{:.3f}")),
        Column("explore success", percent("explore_success_rate")),
        Column("time", field("duration_s", "{:.0f}s")),
    ),
    title="AgentEvol: evaluation after each stage (held-out tasks)",
)
