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
    from rich.table import Table

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
    rows = evol.run()
    if not evol.main:  # other processes of a distributed run: the main one reports
        return
    table = Table(title="AgentEvol: evaluation after each stage (held-out tasks)")
    for column in ("stage", "n", "success", "95% CI", "mean reward", "mean steps", "accepted actions", "train examples", "train loss",
                   "explore success", "time"):  # fmt: skip
        table.add_column(column, justify="left" if column == "stage" else "right")
    for r in rows:
        table.add_row(
            r["stage"], str(r.get("eval_n", "-")), f"{100 * r['success_rate']:.1f}%",
            f"{100 * r['ci95_low']:.1f}-{100 * r['ci95_high']:.1f}%" if "ci95_low" in r else "-", f"{r['mean_reward']:.3f}", f"{r['mean_steps']:.1f}",
            f"{100 * r['accepted_action_rate']:.1f}%" if r.get("accepted_action_rate") is not None else "-",
            str(r.get("train_examples", "-")), f"{r['train_loss']:.3f}" if r.get("train_loss") is not None else "-",
            f"{100 * r['explore_success_rate']:.1f}%" if "explore_success_rate" in r else "-", f"{r['duration_s']:.0f}s",
        )  # fmt: skip
    console.print(table)
    console.print(f"metrics: {config.output_dir}/metrics.jsonl  plot: {config.output_dir}/success_by_stage.png")
