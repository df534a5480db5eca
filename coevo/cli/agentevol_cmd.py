"""`coevo agentevol`: behavioral cloning then explore-and-learn iterations (AgentEvol)."""

from __future__ import annotations

import typer

from coevo.cli import app


@app.command(
    "agentevol",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def agentevol(
    ctx: typer.Context,
    preset: str = typer.Option(None, "--preset", help="cpu-demo | ci | gpu (any option below overrides it)"),
    output_dir: str = typer.Option(None, "--output-dir", help="Run directory; re-running resumes it"),
    list_options: bool = typer.Option(False, "--list-options", help="Show every option with its default and exit"),
) -> None:
    """Train an agent with AgentEvol. Every AgentEvolConfig field is an option: --iterations 3,
    --objective filter, --envs alfworld,bfcl, --no-restart-from-base, ... (see --list-options).
    On several GPUs: accelerate launch -m coevo.cli agentevol --preset gpu --model DIR."""
    from rich.console import Console

    from coevo.agentevol.config import AgentEvolConfig

    console = Console()
    if list_options:
        console.print(AgentEvolConfig.describe_options(), markup=False, highlight=False)
        raise typer.Exit()
    try:
        overrides = AgentEvolConfig.parse_args(list(ctx.args))
        if output_dir:
            overrides["output_dir"] = output_dir
        config = AgentEvolConfig.from_preset(preset, **overrides)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None

    from coevo.cli.signals import exit_cleanly_on_sigterm

    exit_cleanly_on_sigterm()
    from coevo.agentevol.trainer import AgentEvolTrainer

    console.print(
        f"AgentEvol → {config.output_dir}  (preset {preset or 'none'}, model {config.model}, envs {','.join(config.envs)})"
    )
    evol = AgentEvolTrainer(config, log=lambda line: console.print(line, markup=False, highlight=False))
    evol.run()
    if not evol.main:  # other processes of a distributed run: the main one reports
        return
    for table in evol.results_tables():
        console.print(table)
    console.print(f"metrics: {config.output_dir}/metrics.jsonl  plot: {config.output_dir}/success_by_stage.png")
