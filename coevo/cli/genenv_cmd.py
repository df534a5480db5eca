"""`coevo genenv`: the GenEnv co-evolution trainer and its baselines."""

from __future__ import annotations

import typer

from coevo.cli import app


@app.command(
    "genenv",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def genenv(
    ctx: typer.Context,
    preset: str = typer.Option("cpu-demo", "--preset", help="paper | cpu-demo | ci (any option below overrides it)"),
    output_dir: str = typer.Option(None, "--output-dir", help="Checkpoints, pools, metrics; re-running resumes it"),
    list_options: bool = typer.Option(False, "--list-options", help="Show every option with its default and exit"),
) -> None:
    """Train an agent on tasks from a co-evolving environment policy (GenEnv), with the
    GenEnv-Random and static-augmentation baselines; writes metrics.jsonl and genenv.png. Every
    GenEnvConfig field is an option: --epochs 2, --arms genenv,random, --env-backend llm,
    --simulator-url ARM=URL (repeatable), ... (see --list-options); --set field=value also works."""
    import json
    import logging

    from rich.console import Console

    from coevo.genenv.config import GenEnvConfig

    if list_options:
        Console().print(GenEnvConfig.describe_options(), markup=False, highlight=False)
        raise typer.Exit()
    try:
        overrides = GenEnvConfig.parse_args(list(ctx.args))
        if output_dir:
            overrides["output_dir"] = output_dir
        config = GenEnvConfig.from_preset(preset, **overrides)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None

    from coevo.genenv.trainer import GenEnvTrainer

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request drowns the epochs
    console = Console()

    def show(row: dict) -> None:
        console.print(
            f"[bold]{row['arm']}[/bold] epoch {row['epoch']}: success {row['success_rate']:.3f}  "
            f"in-band {row['in_band_fraction']:.3f}  R_env {row['mean_r_env']:.3f}  "
            f"validity {row['validity_rate']:.3f}  ({row['elapsed_s']}s)"
        )

    trainer = GenEnvTrainer(config, on_epoch=show)
    rows = trainer.run()
    for table in trainer.results_tables():
        console.print(table)
    console.print(f"metrics: {config.output_dir}/metrics.jsonl   plot: {config.output_dir}/genenv.png")
    console.print(json.dumps({"output_dir": config.output_dir, "epochs": len(rows)}))
