"""`coevo searchqa build`: generate (or index a user's) SearchQA corpus once, for servers to reuse."""

from __future__ import annotations

from pathlib import Path

import typer

from coevo.cli import app

searchqa = typer.Typer(help="SearchQA corpus tools.", no_args_is_help=True)
app.add_typer(searchqa, name="searchqa")


@searchqa.command("build")
def build(
    passages: int = typer.Option(100_000, help="Generated encyclopedia size (passages)"),
    seed: int = typer.Option(0, help="World seed"),
    corpus: Path = typer.Option(None, help="Index this JSONL passage file instead ({id,title,text} or {id,contents})"),
    questions: Path = typer.Option(
        None, help="Questions: Bamboogle CSV (Question, Answer), FlashRAG JSONL or Search-R1 parquet (golden_answers)"
    ),
    out: Path = typer.Option(None, help="Build directory (default: the shared cache)"),
) -> None:
    """Build the corpus, questions and BM25 index; `coevo serve searchqa -o build_dir=OUT` serves it."""
    from coevo.envs.searchqa.corpus import build_generated, build_user

    path = build_user(corpus, questions, out) if corpus else build_generated(passages, seed, out)
    typer.echo(str(path))
