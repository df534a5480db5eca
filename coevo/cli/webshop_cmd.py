"""`coevo webshop build`: write a WebShop catalog, BM25 index and goals once, for servers to reuse."""

from __future__ import annotations

from pathlib import Path

import typer

from coevo.cli import app

webshop = typer.Typer(help="WebShop catalog tools.", no_args_is_help=True)
app.add_typer(webshop, name="webshop")


@webshop.command("build")
def build(
    products: int = typer.Option(
        None, help="Generated catalog size (100..1181436; default 1000); with --data, how many records to read"
    ),
    out: Path = typer.Option(None, help="Data directory (default: ~/.cache/coevo/webshop/<products>-<seed>)"),
    seed: int = typer.Option(0, help="Catalog seed (generation, range prices, price ceilings)"),
    data: Path = typer.Option(
        None, help="WebShop's data folder (items_shuffle*.json, items_ins_v2*.json, items_human_ins.json)"
    ),
    db_url: str = typer.Option(None, help="Put the catalog in this database (e.g. PostgreSQL) instead of SQLite"),
) -> None:
    """Build the catalog, index and goals; `coevo serve webshop --option data_dir=OUT` serves them."""
    from tqdm import tqdm

    from coevo.envs.webshop.tasks import DEFAULT_PRODUCTS, build as build_data, default_data_dir

    if data is None:
        products = products or DEFAULT_PRODUCTS
        target = out or default_data_dir(products, seed)
    elif out is None:
        raise typer.BadParameter("--out is required with --data")
    else:
        target = out
    with tqdm(total=products, unit=" products", disable=None) as bar:
        manifest = build_data(
            target,
            products=products,
            seed=seed,
            data=data,
            db_url=db_url,
            progress=lambda done: bar.update(done - bar.n),
        )
    typer.echo(
        f"{target}: {manifest.products} products, {manifest.synthetic_goals} synthetic and "
        f"{manifest.human_goals} human goals, built in {manifest.build_seconds:.1f}s"
    )
