"""`coevo genenv`: the GenEnv co-evolution trainer and its baselines."""

from __future__ import annotations

from typing import Any

import typer

from coevo.cli import app


@app.command("genenv")
def genenv(
    preset: str = typer.Option("cpu-demo", "--preset", help="paper | cpu-demo | ci"),
    output_dir: str = typer.Option("runs/genenv", "--output-dir", help="Checkpoints, pools, metrics; resumes"),
    arms: str | None = typer.Option(None, "--arms", help="Comma list of genenv,random,static"),
    epochs: int | None = typer.Option(None, "--epochs"),
    tasks_per_epoch: int | None = typer.Option(None, "--tasks-per-epoch"),
    env_backend: str | None = typer.Option(None, "--env-backend", help="parametric | llm"),
    env_model: str | None = typer.Option(None, "--env-model", help="LLM simulator: 'tiny' or a model directory"),
    agent_model: str | None = typer.Option(None, "--agent-model", help="'smollm2-135m', 'tiny' or a model directory"),
    db_url: str | None = typer.Option(None, "--db-url", help="SQL store (default: SQLite in the output dir)"),
    simulator_url: list[str] = typer.Option([], "--simulator-url",
                                            help="ARM=URL of a `coevo serve simulator` (repeatable)"),
    admin_token: str | None = typer.Option(None, "--admin-token", envvar="COEVO_ADMIN_TOKEN",
                                           help="Admin token of the remote simulators"),
    set_: list[str] = typer.Option([], "--set", help="Any config field: key=value (repeatable)"),
) -> None:
    """Train an agent on tasks from a co-evolving environment policy (GenEnv), with the
    GenEnv-Random and static-augmentation baselines; writes metrics.jsonl and genenv.png."""
    import json
    import logging

    from rich.console import Console
    from rich.table import Table

    from coevo.genenv.config import preset as make_preset
    from coevo.genenv.trainer import GenEnvTrainer

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request drowns the epochs
    overrides: dict[str, str] = {}
    for item in set_:
        key, sep, value = item.partition("=")
        if not sep:
            raise typer.BadParameter(f"--set takes key=value, got {item!r}")
        overrides[key.strip()] = value.strip()
    try:
        config = make_preset(preset, output_dir=output_dir).with_overrides(overrides)
    except (KeyError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from exc
    direct: dict[str, Any] = {
        "epochs": epochs, "tasks_per_epoch": tasks_per_epoch, "env_backend": env_backend,
        "env_model": env_model, "agent_model": agent_model, "db_url": db_url, "admin_token": admin_token,
    }
    for key, value in direct.items():
        if value is not None:
            setattr(config, key, value)
    if arms:
        config.arms = tuple(a.strip() for a in arms.split(",") if a.strip())
    if simulator_url:
        config.simulator_urls = dict(item.split("=", 1) for item in simulator_url)
    try:
        config.validated()
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc

    console = Console()

    def show(row: dict) -> None:
        console.print(
            f"[bold]{row['arm']}[/bold] epoch {row['epoch']}: success {row['success_rate']:.3f}  "
            f"in-band {row['in_band_fraction']:.3f}  R_env {row['mean_r_env']:.3f}  "
            f"validity {row['validity_rate']:.3f}  ({row['elapsed_s']}s)"
        )

    trainer = GenEnvTrainer(config, on_epoch=show)
    rows = trainer.run()
    table = Table("arm", "epoch", "success", "in band", "mean R_env", "validity")
    for row in rows:
        table.add_row(row["arm"], str(row["epoch"]), f"{row['success_rate']:.3f}",
                      f"{row['in_band_fraction']:.3f}", f"{row['mean_r_env']:.3f}", f"{row['validity_rate']:.3f}")
    console.print(table)
    heldout = trainer.heldout_metrics()
    if heldout:
        held = Table("arm", "epoch", "held-out split", "n", "success", "95% CI", title="Held-out tasks (epoch -1: the starting agent)")
        for r in heldout:
            held.add_row(r["arm"], str(r["epoch"]), f"{r['env']}:{r['split']}", str(r["n"]), f"{r['success_rate']:.3f}",
                         f"{r['ci95_low']:.3f}-{r['ci95_high']:.3f}")
        console.print(held)
    console.print(f"metrics: {config.output_dir}/metrics.jsonl   plot: {config.output_dir}/genenv.png")
    console.print(json.dumps({"output_dir": config.output_dir, "epochs": len(rows)}))
