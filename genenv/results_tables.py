"""GenEnv's end-of-run tables, declared over its metrics rows (every column left-aligned): every arm's epochs on generated
tasks, and the held-out splits' scores (`coevo genenv` prints them)."""

from __future__ import annotations

from coevo.training.results_table import Column, ResultsTable, field

EPOCHS = ResultsTable(
    (
        Column("arm", field("arm"), "left"),
        Column("epoch", field("epoch"), "left"),
        Column("success", field("success_rate", "{:.3f}"), "left"),
        Column("in band", field("in_band_fraction", "{:.3f}"), "left"),
        Column("mean R_env", field("mean_r_env", "{:.3f}"), "left"),
        Column("validity", field("validity_rate", "{:.3f}"), "left"),
    )
)

HELDOUT = ResultsTable(
    (
        Column("arm", field("arm"), "left"),
        Column("epoch", field("epoch"), "left"),
        Column("held-out split", lambda r: f"{r['env']}:{r['split']}", "left"),
        Column("n", field("n"), "left"),
        Column("success", field("success_rate", "{:.3f}"), "left"),
        Column("95% CI", lambda r: f"{r['ci95_low']:.3f}-{r['ci95_high']:.3f}", "left"),
    ),
    title="Held-out tasks (epoch -1: the starting agent)",
)
