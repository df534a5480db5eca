"""The demo's training step: the default model fine-tuned for a few minutes on generated tasks,
then scored again on the same held-out tasks of a real benchmark — the platform's purpose in
one table.

The training is GenEnv's agent warm-up (SFT on gold answers of function-calling tasks the
simulator generates, coevo.genenv.agent_warmup; function calling alone, since BFCL asks for
calls and a warm-up that mixed in arithmetic taught the model to answer BFCL requests with
computed numbers); the held-out tasks are official BFCL entries
(non-live simple_python and multiple), shown in the view the agent trains in
(coevo.genenv.heldout). Base and trained model answer the very same tasks, so the gain comes
with a paired interval.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The held-out BFCL splits of the demo (single-call categories, as the generated tasks are).
SPLITS = ("simple_python", "multiple")


@dataclass
class TrainingStep:
    """What the step measured: per split and pooled, base against trained."""

    model: str
    steps: int
    n: int
    rows: list[dict[str, Any]]
    gain: dict[str, float]
    train_s: float
    eval_s: float
    #: True when the trained model came from an earlier demo in the same folder (train_s is then
    #: that run's training time).
    reused: bool = False


def training_dir(out_dir: Path, model: str, steps: int) -> Path:
    """Where the step keeps its trained model and held-out scores, one folder per model and steps."""
    return out_dir / f"training-{Path(model).name}-{steps}-steps"


def trained_earlier(out_dir: Path, model: str, steps: int) -> Path | None:
    """The model a previous demo trained with these settings, which this one reuses (the warm-up is
    made once per folder), or None."""
    warmed = training_dir(out_dir, model, steps) / "agent_warmup"
    return warmed if (warmed / "config.json").is_file() else None


def run_training_step(
    bfcl_url: str, out_dir: Path, *, steps: int, n: int, log: Callable[[str], None], model: str = "smollm2-135m"
) -> TrainingStep:
    """Score `model` on the held-out lists, warm it up on generated tasks, score it again."""
    from coevo.client.heldout import pooled_outcomes
    from coevo.client.stats import paired_comparison, wilson_interval
    from coevo.genenv.config import preset
    from coevo.genenv.heldout import AgentHeldout
    from coevo.genenv.trainer import GenEnvTrainer

    config = preset(
        "cpu-demo", output_dir=str(training_dir(out_dir, model, steps)), arms=("genenv",),
        agent_model=model, agent_warmup_steps=steps, families=("function_calling",),
        heldout=tuple(f"bfcl:{split}:{n}" for split in SPLITS),
        heldout_urls={"bfcl": bfcl_url},
    )  # fmt: skip
    trainer = GenEnvTrainer(config)
    view = AgentHeldout.for_run(config, config.heldout_urls)
    t0 = time.monotonic()
    log(f"training step: scoring {model} on {n} held-out BFCL tasks per split ({', '.join(SPLITS)})")
    base = view.evaluate(trainer.base_agent())
    eval_s = time.monotonic() - t0
    reused = trained_earlier(out_dir, model, steps)
    if reused is None:
        log(f"training step: {steps} SFT steps on gold answers of generated function-calling tasks")
    t1 = time.monotonic()
    trained_dir = trainer.starting_agent()
    train_s = time.monotonic() - t1
    if reused is None:
        log(f"training step: trained in {train_s:.0f}s; scoring the trained model on the same tasks")
    else:
        train_s = earlier_training_s(reused)
        log(f"training step: reused the model trained earlier in {reused} ({train_s:.0f}s then; "
            "`coevo demo --fresh` trains again); scoring it on the same tasks")  # fmt: skip
    t2 = time.monotonic()
    trained = view.evaluate(trained_dir)
    eval_s += time.monotonic() - t2
    rows: list[dict[str, Any]] = []
    for before, after in zip(base.rows, trained.rows):
        rows.append({"split": f"{before.env}:{before.split}", "n": before.n,
                     "base": [before.success_rate, before.ci95_low, before.ci95_high],
                     "trained": [after.success_rate, after.ci95_low, after.ci95_high]})  # fmt: skip
    pooled_before, pooled_after = pooled_outcomes(base.rows), pooled_outcomes(trained.rows)
    total = len(pooled_before)
    rows.append({"split": "all", "n": total,
                 "base": [sum(pooled_before) / total, *wilson_interval(int(sum(pooled_before)), total)],
                 "trained": [sum(pooled_after) / total, *wilson_interval(int(sum(pooled_after)), total)]})  # fmt: skip
    c = paired_comparison(pooled_before, pooled_after)
    gain = {"difference": c.difference, "ci95_low": c.ci95_low, "ci95_high": c.ci95_high, "mcnemar_p": c.mcnemar_p}
    log(f"training step: base {rows[-1]['base'][0]:.3f} -> trained {rows[-1]['trained'][0]:.3f} "
        f"(gain {c.difference:+.3f}, 95% CI {c.ci95_low:+.3f} to {c.ci95_high:+.3f}, n={total})")  # fmt: skip
    return TrainingStep(model, steps, n, rows, gain, round(train_s, 1), round(eval_s, 1), reused is not None)


def earlier_training_s(warmed: Path) -> float:
    """How long the reused warm-up took when it was made (its warmup.json), 0 if not recorded."""
    stats = warmed / "warmup.json"
    return float(json.loads(stats.read_text()).get("elapsed_s", 0.0)) if stats.is_file() else 0.0
