"""`coevo rescore ENV -o KEY=VALUE`: re-score the episodes a store recorded under another
scoring mode, into the store's `rescores` table (the recorded steps are never touched), with a
table of the original and the new numbers and, with --out, a JSONL export of every episode."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from coevo.cli import app


@app.command("rescore")
def rescore(
    env: str = typer.Argument(..., help="Registered env name whose recorded episodes to re-score"),
    option: list[str] = typer.Option([], "--option", "-o", help="Env option of the scoring mode, key=value"),
    db_url: str = typer.Option(None, "--db-url", help="Trajectory store URL (default $COEVO_DB_URL or ./coevo.db)"),
    run: str = typer.Option(None, help="Only episodes of this run tag"),
    policy: str = typer.Option(None, help="Only episodes of this policy tag"),
    limit: int = typer.Option(None, min=1, help="At most this many episodes, oldest first"),
    out: Path = typer.Option(None, help="Also write one JSON line per episode here"),
) -> None:
    """Replay each recorded episode's actions in the env built with --option (e.g. decoder=lenient,
    scoring=corrected, scoring=f1) and store what they earn there as a new score column."""
    from rich.console import Console
    from rich.table import Table

    from coevo import end_status
    from coevo.cli.rescoring import VersionGone, build_env, check_versions, rescore_episode
    from coevo.cli.serve_cmd import parse_options
    from coevo.cli.tables import pct, print_table
    from coevo.store.db import make_engine
    from coevo.score_mode import score_mode
    from coevo.store.rescores import recorded_episodes, save_rescores

    console = Console()
    options = parse_options(option)
    mode = score_mode(options)
    instance = build_env(env, options)
    name = type(instance).name  # what the store calls it (`env` may be a module:Class path)
    engine = make_engine(db_url)
    episodes = recorded_episodes(engine, name, run=run, policy=policy, limit=limit)
    if not episodes:
        which = " of that run/policy" if run or policy else ""
        raise typer.BadParameter(f"the store has no closed {name} episodes{which}")
    try:
        check_versions(instance, episodes)
    except VersionGone as exc:
        console.print(f"[red]refused:[/red] {exc}")
        raise typer.Exit(2) from None
    rows = [rescore_episode(instance, e) for e in episodes]
    save_rescores(engine, mode, rows)

    def rate(pairs: list[tuple[str, bool | None]]) -> str:
        judged = [bool(success) for status, success in pairs if end_status.is_scored(status)]
        return f"{pct(sum(judged) / len(judged))} of {len(judged)}" if judged else "-"

    table = Table(title=f"{name} · re-scored as {mode or 'the defaults'}")
    for column in ("episodes", "success as recorded", "success re-scored", "changed verdicts"):
        table.add_column(column, justify="right")
    changed = sum(
        1 for e, r in zip(episodes, rows) if end_status.is_scored(r["status"]) and bool(r["success"]) != bool(e.success)
    )
    table.add_row(str(len(rows)), rate([(e.status, e.success) for e in episodes]),
                  rate([(r["status"], r["success"]) for r in rows]), str(changed))  # fmt: skip
    counts = {k: v for k, v in end_status.count(r["status"] for r in rows).items() if v}
    table.caption = "re-scored status: " + ", ".join(f"{k} {v}" for k, v in counts.items())
    print_table(console, table)
    if out is not None:
        with out.open("w") as f:
            for e, r in zip(episodes, rows):
                record = {
                    "episode_id": e.id, "env": e.env, "env_version": e.env_version, "task_id": e.task_id,
                    "seed": e.seed, "policy": e.policy, "run": e.run,
                    "recorded": {"status": e.status, "reward": e.total_reward, "success": e.success},
                    "rescored": {"score_mode": mode, "status": r["status"], "reward": r["total_reward"],
                                 "success": r["success"], "error": r["error"]},
                }  # fmt: skip
                f.write(json.dumps(record) + "\n")
        console.print(f"wrote {len(rows)} episodes to {out}")
