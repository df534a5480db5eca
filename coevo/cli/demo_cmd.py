"""`coevo demo`: the main job in one command — every env served, the expert and the default
model evaluated on a few tasks of each, a leaderboard, and the trajectories left in SQLite."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from coevo.cli import app

if TYPE_CHECKING:
    from coevo.cli.demo_training import TrainingStep

#: Turns the default model gets per episode in the demo: enough to show it act, few enough that
#: the whole demo stays within minutes on two CPU cores.
DEMO_MODEL_ROUNDS = 3


def importable_envs(requested: list[str] | None = None) -> tuple[list[str], dict[str, str]]:
    """Built-in envs whose code imports here (their servers can start), and why the rest cannot."""
    from coevo.envs import registry

    names = requested or sorted(registry.BUILTIN)
    ok, skipped = [], {}
    for name in names:
        try:
            registry.spec(name).load()
            ok.append(name)
        except Exception as exc:  # an optional env's missing dependency must not stop the demo
            skipped[name] = f"{type(exc).__name__}: {exc}"
    return ok, skipped


def clear_earlier_run(out_dir: Path) -> list[Path]:
    """--fresh: remove what an earlier demo left in `out_dir` (trained models, leaderboard,
    trajectories, log) and nothing else; returns what was removed."""
    import shutil

    removed = sorted(
        [
            *out_dir.glob("training-*"),
            *out_dir.glob("*.jsonl"),
            *out_dir.glob("leaderboard.json"),
            *out_dir.glob("demo.log"),
        ]
    )
    for path in removed:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    return removed


def training_table(step: TrainingStep) -> Any:
    from rich.table import Table

    from coevo.cli.demo_training import STAGES

    when = "trained earlier, reused; --fresh retrains" if step.reused else f"SFT {step.train_s:.0f}s"
    if step.rl_epochs and not step.reused:
        when += f", RL {step.rl_s:.0f}s"
    rl = f", then {step.rl_epochs} GenEnv RL epoch(s)" if step.rl_epochs else ""
    table = Table(title=f"training step · {step.model}, {step.steps} SFT steps on generated tasks{rl} ({when}) · "
                        "held-out BFCL success [95% CI]")  # fmt: skip
    stages = [stage for stage in STAGES if stage in step.rows[0]]
    table.add_column("held-out split")
    for column in ("n", *(STAGES[s] for s in stages)):
        table.add_column(column, justify="right")
    for row in step.rows:
        cells = [f"{100 * row[s][0]:.1f}% [{100 * row[s][1]:.1f}-{100 * row[s][2]:.1f}]" for s in stages]
        table.add_row(row["split"], str(row["n"]), *cells)
    parts = [("supervised start vs base", step.gain_sft)]
    if step.gain_rl:
        parts += [("after RL vs supervised start", step.gain_rl), ("after RL vs base", step.gain)]
    table.caption = "; ".join(
        f"{name} {100 * g['difference']:+.1f} points, paired 95% CI {100 * g['ci95_low']:+.1f} to "
        f"{100 * g['ci95_high']:+.1f}, McNemar p={g['mcnemar_p']:.2g}"
        for name, g in parts
    )
    return table


@app.command("demo")
def demo(
    envs: str = typer.Option(None, help="Comma-separated envs (default: every built-in env that imports)"),
    n: int = typer.Option(3, "--n", help="Tasks per env"),
    policies: str = typer.Option("expert,smollm2", help="Comma-separated policies to compare"),
    model_rounds: int = typer.Option(DEMO_MODEL_ROUNDS, help="Turns per episode for model policies"),
    max_new_tokens: int = typer.Option(48, help="Longest model reply, in tokens"),
    max_prompt_tokens: int = typer.Option(512, help="Model prompt budget in tokens (oldest turns dropped first)"),
    backend: str = typer.Option(
        "auto",
        help="Local models' engine: auto (llama.cpp on CPU hosts, transformers on GPU hosts) | llamacpp | transformers",
    ),
    db_url: str = typer.Option(None, "--db-url", help="SQL store (default $COEVO_DB_URL or ./coevo.db)"),
    out_dir: Path = typer.Option(Path("runs/demo"), help="Leaderboard JSON and AgentTraj JSONL go here"),
    train_steps: int = typer.Option(
        10, help="Training step: SFT steps of the default model on generated tasks (0: none)"
    ),
    train_n: int = typer.Option(50, help="Training step: held-out BFCL tasks per split, scored at every stage"),
    rl_epochs: int = typer.Option(1, help="Training step: GenEnv RL epochs after the supervised start (0: SFT alone)"),
    train_model: str = typer.Option(
        "smollm2-135m", help="Training step: the model trained (smollm2-135m, tiny, or a model directory)"
    ),
    fresh: bool = typer.Option(
        False, "--fresh", help="Start over: remove the trained model and results an earlier demo left in --out-dir"
    ),
) -> None:
    """Serve every env, evaluate the expert and the default model, print the leaderboard."""
    import asyncio
    import time

    from rich.console import Console
    from rich.table import Table

    from coevo.cli.demo_training import trained_earlier
    from coevo.cli.progress import ProgressLog, progress_bar
    from coevo.cli.signals import exit_cleanly_on_sigterm, on_signal
    from coevo.cli.tables import pct, print_table, slug
    from coevo.client.launcher import env_servers
    from coevo.store.run_recorder import RunRecorder
    from coevo.client.agenttraj import write_jsonl
    from coevo.client.evaluation import TaskRef, eval_split, pick_tasks, rollout_tasks
    from coevo.client.policies import Sampling, make_policy
    from coevo.client.rollout import shard_clients
    from coevo.client.summary import summarize
    from coevo.store import default_db_url

    exit_cleanly_on_sigterm()
    console = Console()
    started = time.monotonic()
    names, skipped = importable_envs([e.strip() for e in envs.split(",")] if envs else None)
    for name, why in skipped.items():
        console.print(f"[yellow]skipping {name}: {why}")
    if not names:
        console.print("[red]no env could be imported")
        raise typer.Exit(1)
    db_url = default_db_url(db_url)
    recorder = RunRecorder(db_url)
    if fresh:
        removed = clear_earlier_run(out_dir)
        if removed:
            console.print(
                f"--fresh: removed {len(removed)} earlier results from {out_dir}/ ({', '.join(p.name for p in removed)})"
            )
    elif train_steps > 0 and (earlier := trained_earlier(out_dir, train_model, train_steps, rl_epochs)) is not None:
        console.print(
            f"[yellow]reusing the model trained by an earlier demo: {earlier} "
            f"(made {time.strftime('%Y-%m-%d %H:%M', time.localtime(earlier.stat().st_mtime))}); "
            "run `coevo demo --fresh` (or `make demo DEMO_ARGS=--fresh`) to train again"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    policy_names = [p.strip() for p in policies.split(",") if p.strip()]
    board: dict[str, dict[str, dict]] = {}
    progress = ProgressLog(out_dir / "demo.log", "coevo demo", len(policy_names) * n * len(names))
    console.print(f"progress log: {progress.path}")

    def say(line: str) -> None:
        console.print(line, markup=False, highlight=False)
        progress.write(line)

    async def run(servers: dict[str, list[str]]) -> None:
        clients = {env: shard_clients(urls, concurrency=n) for env, urls in servers.items()}
        try:
            tasks: list[TaskRef] = []
            for env, group in clients.items():
                info = await group[0].info()
                tasks += await pick_tasks(group[0], env, eval_split(info.splits, info.default_split), n)
            for spec in policy_names:
                with console.status(f"loading policy {spec}"):
                    policy = make_policy(
                        spec, sampling=Sampling(max_new_tokens=max_new_tokens), backend=backend,
                        max_prompt_tokens=max_prompt_tokens,
                        max_batch_size=len(tasks),  # one forward pass per round for every episode
                    )  # fmt: skip
                on_signal(policy.cancel)
                model = spec not in ("expert", "random")
                config = {"envs": names, "n": n, "max_rounds": model_rounds if model else None}
                run_id = recorder.start(name=f"demo {policy.name}", kind="demo", policy=policy.name, config=config)
                counts = {"ok": 0, "n": 0}
                with progress_bar(console) as bar:
                    bar_task = bar.add_task(f"{policy.name}", total=len(tasks), success="-")

                    def on_done(t, counts=counts, bar=bar, bar_task=bar_task) -> None:  # type: ignore[no-untyped-def]
                        counts["n"] += 1
                        counts["ok"] += int(t.success)
                        bar.update(bar_task, advance=1, success=f"{counts['ok']}/{counts['n']}")
                        progress.episode(t.success)

                    trajectories = await rollout_tasks(
                        policy, clients, tasks, max_rounds=model_rounds if model else None,
                        concurrency=64, on_done=on_done, run=out_dir.name,
                    )  # fmt: skip
                await policy.aclose()
                recorder.save(run_id, trajectories, summarize(trajectories))
                write_jsonl(out_dir / f"{slug(policy.name)}.jsonl", [t.to_agentgym() for t in trajectories])
                board[policy.name] = {env: summarize([t for t in trajectories if t.env == env]) for env in names}
                board[policy.name]["all"] = summarize(trajectories)
        finally:
            for group in clients.values():
                for client in group:
                    await client.aclose()

    with console.status(f"starting {len(names)} env servers: {', '.join(names)}"):
        servers_cm = env_servers(names, db_url=db_url)
        servers = servers_cm.__enter__()
    training = None
    try:
        asyncio.run(run(servers))
        if train_steps > 0 and "bfcl" in servers:
            from coevo.cli.demo_training import run_training_step

            training = run_training_step(
                servers["bfcl"][0],
                out_dir,
                steps=train_steps,
                n=train_n,
                log=say,
                model=train_model,
                rl_epochs=rl_epochs,
            )
    finally:
        servers_cm.__exit__(None, None, None)

    table = Table(title=f"coevo demo · {n} tasks per env · success rate (mean reward)")
    table.add_column("env")
    for policy_name in board:
        table.add_column(policy_name, justify="right")

    def cell(stats: dict[str, Any]) -> str:
        # Rates are over the episodes the env judged; the others are shown, never counted as 0.
        shown = f"{pct(stats['success_rate'])} ({stats['mean_reward']:.2f})" if stats.get("scored", 1) else "-"
        return shown + (f" · {stats['unscored']} unscored" if stats.get("unscored") else "")

    for env in names:
        table.add_row(env, *[cell(per_env[env]) for per_env in board.values()])
    # Episode returns measure different things per env (exact match, ROUGE-L, goal
    # conditions), so the overall row gives the success rate alone.
    table.add_section()
    table.add_row("[bold]all", *[f"[bold]{pct(per_env['all']['success_rate'])}" for per_env in board.values()])
    print_table(console, table)
    if training is not None:
        print_table(console, training_table(training))
    document = {"n_per_env": n, "envs": names, "skipped": skipped, "board": board,
                "training": None if training is None else dataclasses.asdict(training)}  # fmt: skip
    (out_dir / "leaderboard.json").write_text(json.dumps(document, indent=2))
    progress.close()
    console.print(f"trajectories: {recorder.url} (tables rollout_runs, rollout_trajectories; servers: episodes, steps)")
    console.print(f"leaderboard and AgentTraj JSONL: {out_dir}/  ·  {time.monotonic() - started:.0f}s")
