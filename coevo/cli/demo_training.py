"""The demo's training step: the default model scored on held-out tasks of a real benchmark
(BFCL) before training, after a supervised start, and after GenEnv's RL — the platform's purpose
in one table.

The supervised start is GenEnv's agent warm-up (SFT on gold answers of function-calling tasks
the simulator generates, coevo.genenv.agent_warmup; function calling alone, since BFCL asks for
calls and a warm-up that mixed in arithmetic taught the model to answer BFCL requests with
computed numbers). The RL is GenEnv's own loop from that start (coevo.genenv.trainer: a sampling
pass over generated tasks, GRPO on the ones nearest α, then the environment policy's update),
with the steadier GRPO steps that first raised held-out success in bench/results/training.md
(run 5). The held-out tasks are official BFCL entries (non-live simple_python and multiple), in
the view the agent trains in (coevo.genenv.heldout). Every model answers the very same tasks, so
each gain comes with a paired interval.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The held-out BFCL splits of the demo (single-call categories, as the generated tasks are).
SPLITS = ("simple_python", "multiple")

#: GRPO tasks per RL epoch: two optimizer steps of 4 tasks x 5 completions (run 5's step size),
#: which keeps the whole demo within 10 minutes on two cores.
DEMO_GRPO_TASKS = 8

#: The three models the table compares, in order, and what the table calls them.
STAGES = {"base": "base", "start": "supervised start", "trained": "after RL"}


@dataclass
class TrainingStep:
    """What the step measured: per split and pooled, each stage's success [95% CI], and the
    paired gains between consecutive stages and overall."""

    model: str
    steps: int
    n: int
    rows: list[dict[str, Any]]
    #: base -> last stage (after RL, or the supervised start when rl_epochs is 0)
    gain: dict[str, float]
    train_s: float
    eval_s: float
    #: True when the trained models came from an earlier demo in the same folder (train_s is then
    #: those runs' training time).
    reused: bool = False
    rl_epochs: int = 0
    #: base -> supervised start, and supervised start -> after RL (when there is RL)
    gain_sft: dict[str, float] = field(default_factory=dict)
    gain_rl: dict[str, float] = field(default_factory=dict)
    rl_s: float = 0.0


def training_dir(out_dir: Path, model: str, steps: int, rl_epochs: int = 0) -> Path:
    """Where the step keeps its trained models and scores, one folder per model and settings."""
    suffix = f"-{rl_epochs}-rl" if rl_epochs else ""
    return out_dir / f"training-{Path(model).name}-{steps}-steps{suffix}"


def trained_earlier(out_dir: Path, model: str, steps: int, rl_epochs: int = 0) -> Path | None:
    """The folder of models a previous demo trained with these settings, which this one reuses
    (made once per folder), or None."""
    folder = training_dir(out_dir, model, steps, rl_epochs)
    if not (folder / "agent_warmup" / "config.json").is_file():
        return None
    if rl_epochs and not _rl_done(folder, rl_epochs):
        return None
    return folder


def _rl_done(folder: Path, rl_epochs: int) -> bool:
    state = folder / "genenv" / "state.json"
    return state.is_file() and int(json.loads(state.read_text()).get("epochs_done", 0)) >= rl_epochs


def run_training_step(
    bfcl_url: str,
    out_dir: Path,
    *,
    steps: int,
    n: int,
    log: Callable[[str], None],
    model: str = "smollm2-135m",
    rl_epochs: int = 1,
) -> TrainingStep:
    """Score `model` on the held-out lists, warm it up on generated tasks and score it again, then
    run `rl_epochs` of GenEnv from there and score it a third time."""
    from coevo.genenv.config import preset
    from coevo.genenv.heldout import AgentHeldout
    from coevo.genenv.trainer import GenEnvTrainer

    folder = training_dir(out_dir, model, steps, rl_epochs)
    config = preset(
        "cpu-demo", output_dir=str(folder), arms=("genenv",), epochs=max(rl_epochs, 1),
        agent_model=model, agent_warmup_steps=steps, families=("function_calling",),
        grpo_tasks_per_epoch=DEMO_GRPO_TASKS, heldout=tuple(f"bfcl:{split}:{n}" for split in SPLITS),
        heldout_urls={"bfcl": bfcl_url},
    )  # fmt: skip
    view = AgentHeldout.for_run(config, config.heldout_urls)
    # The demo scores each stage itself (one view, one table); the trainer only trains.
    trainer = GenEnvTrainer(config.replace(heldout=(), heldout_urls={}), on_epoch=_epoch_line(log, rl_epochs))
    reused = trained_earlier(out_dir, model, steps, rl_epochs) is not None
    results: dict[str, Any] = {}
    t0 = time.monotonic()
    log(f"training step: scoring {model} on {n} held-out BFCL tasks per split ({', '.join(SPLITS)})")
    results["base"] = view.evaluate(trainer.base_agent())
    eval_s = time.monotonic() - t0

    if not reused:
        log(f"training step: supervised start: {steps} SFT steps on gold answers of generated function-calling tasks")
    t1 = time.monotonic()
    start_dir = trainer.starting_agent()
    train_s = time.monotonic() - t1
    if reused:
        train_s = earlier_training_s(Path(start_dir))
        log(f"training step: reused the models trained earlier in {folder} ({train_s:.0f}s of SFT then; "
            "`coevo demo --fresh` trains again)")  # fmt: skip
    else:
        log(f"training step: trained in {train_s:.0f}s; scoring the supervised start on the same tasks")
    t2 = time.monotonic()
    results["start"] = view.evaluate(start_dir)
    eval_s += time.monotonic() - t2

    rl_s = 0.0
    if rl_epochs > 0:
        if not reused:
            log(f"training step: RL: {rl_epochs} GenEnv epoch(s) from the supervised start: GRPO on the "
                f"{DEMO_GRPO_TASKS} of {config.tasks_per_epoch} generated tasks nearest α = {config.alpha}, "
                "then the environment policy's update")  # fmt: skip
        trainer.run()
        rl_s = sum(float(row.get("elapsed_s", 0.0)) for row in trainer.metrics())
        log(f"training step: RL took {rl_s:.0f}s{' then' if reused else ''}; scoring the RL agent")
        t3 = time.monotonic()
        results["trained"] = view.evaluate(folder / "genenv" / "agent")
        eval_s += time.monotonic() - t3

    stages = [stage for stage in STAGES if stage in results]
    rows = _rows({stage: results[stage].rows for stage in stages})
    last = stages[-1]
    gains = {
        "gain": _paired(results["base"].rows, results[last].rows),
        "gain_sft": _paired(results["base"].rows, results["start"].rows),
        "gain_rl": _paired(results["start"].rows, results["trained"].rows) if "trained" in results else {},
    }
    summary = " -> ".join(f"{STAGES[s]} {rows[-1][s][0]:.3f}" for s in stages)
    g = gains["gain"]
    log(f"training step: {summary} (gain {g['difference']:+.3f}, 95% CI {g['ci95_low']:+.3f} to "
        f"{g['ci95_high']:+.3f}, n={rows[-1]['n']})")  # fmt: skip
    return TrainingStep(
        model, steps, n, rows, gains["gain"], round(train_s, 1), round(eval_s, 1), reused, rl_epochs,
        gains["gain_sft"], gains["gain_rl"], round(rl_s, 1),
    )  # fmt: skip


def _epoch_line(log: Callable[[str], None], rl_epochs: int) -> Callable[[dict[str, Any]], None]:
    def on_epoch(row: dict[str, Any]) -> None:
        log(f"training step: RL epoch {row['epoch'] + 1}/{rl_epochs} done in {row.get('elapsed_s', 0):.0f}s: "
            f"success on its generated tasks {row['success_rate']:.2f}, in band {row['in_band_fraction']:.2f}")  # fmt: skip

    return on_epoch


def _rows(by_stage: dict[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """One row per split, then the pooled row: each stage's [rate, ci95 low, ci95 high]."""
    from coevo.client.heldout import pooled_outcomes
    from coevo.client.stats import wilson_interval

    stages = list(by_stage)
    rows: list[dict[str, Any]] = []
    for per_split in zip(*by_stage.values()):
        first = per_split[0]
        row: dict[str, Any] = {"split": f"{first.env}:{first.split}", "n": first.n}
        for stage, result in zip(stages, per_split):
            row[stage] = [result.success_rate, result.ci95_low, result.ci95_high]
        rows.append(row)
    pooled = {stage: pooled_outcomes(list(result)) for stage, result in by_stage.items()}
    total = len(pooled[stages[0]])
    rows.append({"split": "all", "n": total,
                 **{s: [sum(o) / total, *wilson_interval(int(sum(o)), total)] for s, o in pooled.items()}})  # fmt: skip
    return rows


def _paired(before: Sequence[Any], after: Sequence[Any]) -> dict[str, float]:
    from coevo.client.heldout import pooled_outcomes
    from coevo.client.stats import paired_comparison

    c = paired_comparison(pooled_outcomes(list(before)), pooled_outcomes(list(after)))
    return {"difference": c.difference, "ci95_low": c.ci95_low, "ci95_high": c.ci95_high, "mcnemar_p": c.mcnemar_p}


def earlier_training_s(warmed: Path) -> float:
    """How long the reused warm-up took when it was made (its warmup.json), 0 if not recorded."""
    stats = warmed / "warmup.json"
    return float(json.loads(stats.read_text()).get("elapsed_s", 0.0)) if stats.is_file() else 0.0
