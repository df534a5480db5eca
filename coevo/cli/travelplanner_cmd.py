"""`coevo eval-plans FILE`: TravelPlanner's official metrics for a file of plans."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from coevo.cli import app


@app.command("eval-plans")
def eval_plans(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="JSON Lines: {idx|task_id, plan} per query"),
    queries: Path = typer.Option(
        None, exists=True, dir_okay=False, help="Official query file (.csv/.jsonl/.json); default: a generated split"
    ),
    split: str = typer.Option("validation", help="Generated split the plans answer"),
    split_size: int = typer.Option(None, help="Score only the first N generated queries of the split"),
    seed: int = typer.Option(0, help="Seed of the generated sandbox and queries"),
    database_dir: Path = typer.Option(None, exists=True, file_okay=False, help="Official database folder"),
    db_url: str = typer.Option(None, help="SQLAlchemy URL of the sandbox database"),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object"),
    details: bool = typer.Option(False, help="With --json: every check of every plan"),
) -> None:
    """Score plans with the official TravelPlanner evaluation (delivery, commonsense, hard, final pass)."""
    from coevo.envs.travelplanner.database import open_sandbox
    from coevo.envs.travelplanner.plan_files import PlanFileError, score_plan_file
    from coevo.envs.travelplanner.queries import OFFICIAL_SPLIT_SIZES, QueryFormatError, load_query_file
    from coevo.envs.travelplanner.tasks import generate_task

    db = open_sandbox(seed=seed, database_dir=str(database_dir) if database_dir else None, db_url=db_url)
    try:
        if queries is not None:
            query_list = load_query_file(queries)
            split_name = None
        else:
            size = split_size if split_size is not None else OFFICIAL_SPLIT_SIZES.get(split)
            if size is None:
                raise typer.BadParameter(f"unknown split {split!r}; give --split-size")
            from tqdm import tqdm

            indexes = tqdm(range(size), desc=f"generating {split} queries", unit=" queries", disable=None, leave=False)
            query_list = [generate_task(db, seed, split, i).query for i in indexes]
            split_name = split
        scored = score_plan_file(file, query_list, db, split_name)
    except (PlanFileError, QueryFormatError) as exc:
        raise typer.BadParameter(str(exc)) from None
    report = scored.report()
    if as_json:
        if details:
            report["plans"] = [e.to_dict() for e in scored.evaluations]
        typer.echo(json.dumps(report))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("metric", "value", title=f"TravelPlanner: {report['queries']} queries")
    for key in (
        "delivery_rate",
        "commonsense_micro_pass_rate",
        "commonsense_macro_pass_rate",
        "hard_micro_pass_rate",
        "hard_macro_pass_rate",
        "final_pass_rate",
    ):
        table.add_row(key.replace("_", " "), f"{100 * report[key]:.1f}%")
    console = Console()
    console.print(table)
    checks = Table("constraint", "passed", "failed")
    for name, tally in report["per_constraint"].items():
        checks.add_row(name, str(tally["passed"]), str(tally["failed"]))
    console.print(checks)
    if report["unreadable_plans"]:
        console.print(f"{report['unreadable_plans']} plans could not be read and count as not delivered.")
