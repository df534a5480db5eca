"""Build a WebShop data directory once: catalog (SQL), BM25 index and goal arrays.

    data_dir/
      manifest.json            what was built, from what, and where the catalog lives
      catalog.sqlite           products and human goals (unless built into another database)
      index/                   bm25s files, memory-mapped by every server
      synthetic_offsets.npy    first synthetic goal number of each product
      synthetic_order.npy      WebShop's shuffled synthetic goal order
      human_order.npy          the same for human goals, when items_human_ins.json was given

Everything streams: products are generated or read one at a time, inserted in batches and
tokenised into the index builder, so a 1.18M-product build needs no more than a few GB.
Builds go to a temporary sibling directory that is renamed into place when complete, so a
reader never sees half a build and concurrent builders do not clash.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import shutil
import time
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import event, insert
from sqlalchemy.engine import make_url

from coevo.envs.webshop.catalog import CatalogBase, HumanGoalRow, ProductRow, catalog_engine
from coevo.envs.webshop.generator import generate
from coevo.envs.webshop.goals import SHUFFLE_SEED, combinations, shuffled_order
from coevo.envs.webshop.records import (
    BadRecord,
    Product,
    find_file,
    iter_array,
    iter_object,
    normalize_product,
    usable_asin,
)
from coevo.envs.webshop.search import Analyzer, IndexBuilder

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SQLITE_FILE = "catalog.sqlite"
DEFAULT_PRODUCTS = 1000
_BATCH = 2000


@dataclass
class Manifest:
    format_version: int
    source: str  # "generated" or the WebShop data folder
    products: int
    seed: int
    shuffle_seed: int
    #: "catalog.sqlite" (inside the data directory) or a database URL with the password hidden
    catalog: str
    synthetic_goals: int
    human_goals: int
    build_seconds: float

    @classmethod
    def read(cls, folder: Path) -> Manifest:
        path = folder / MANIFEST
        if not path.is_file():
            raise FileNotFoundError(f"{folder} is not a built WebShop data directory (no {MANIFEST})")
        data = json.loads(path.read_text())
        if data.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"{folder} was built by another version; rebuild it")
        return cls(**data)

    def catalog_url(self, folder: Path, override: str | None = None) -> str:
        if override:
            return override
        if self.catalog == SQLITE_FILE:
            return f"sqlite:///{(folder / SQLITE_FILE).resolve()}"
        if "***" in self.catalog:
            raise ValueError("this catalog lives in a password-protected database: pass db_url")
        return self.catalog


def product_price(product: Product, seed: int) -> float:
    """WebShop's reward price: the single price, or a uniform draw in a range (seeded per ASIN)."""
    if len(product.pricing) == 1:
        return product.pricing[0]
    return random.Random(f"webshop-range:{seed}:{product.asin}").uniform(*product.pricing[:2])


# ------------------------------------------------------------------ sources
@dataclass
class HumanInstruction:
    product_idx: int
    instruction: str
    attributes: list[str]
    options: list[str]


#: One product ready to store: its row (less the number), its analysed search document, how
#: many synthetic goals it makes, and its items_human_ins.json entries.
Prepared = tuple[dict[str, Any], list[str], int, list[dict[str, Any]]]


def _prepare(product: Product, seed: int, analyze: Analyzer, human: list[dict[str, Any]]) -> Prepared:
    row = {
        "asin": product.asin, "title": product.title, "description": product.description,
        "bullet_points": product.bullet_points, "price_tag": product.price_tag,
        "price": product_price(product, seed), "options": product.options,
        "attributes": product.attributes, "category": product.category, "query": product.query,
        "product_category": product.product_category, "instruction": product.instruction,
        "instruction_attributes": product.instruction_attributes,
    }
    usable = product.instruction is not None and bool(product.instruction_attributes)
    return row, analyze(product.document()), combinations(product.options) if usable else 0, human


def _generated(n: int, seed: int) -> Iterator[Prepared]:
    analyze = Analyzer()
    for record, ins in generate(n, seed):
        yield _prepare(normalize_product(record, ins), seed, analyze, [])


def _webshop_files(folder: Path, limit: int | None, seed: int) -> Iterator[Prepared]:
    shuffle_path = find_file(folder, "items_shuffle")
    assert shuffle_path is not None
    ins_path = find_file(folder, "items_ins_v2", required=False)
    human_path = folder / "items_human_ins.json"
    ins = dict(iter_object(ins_path)) if ins_path else {}
    human = dict(iter_object(human_path)) if human_path.is_file() else {}
    analyze = Analyzer()
    seen: set[str] = set()
    for position, raw in enumerate(iter_array(shuffle_path)):
        if limit is not None and position >= limit:  # WebShop's products[:num_products]
            break
        asin = raw.get("asin")
        if not usable_asin(asin) or asin in seen:
            continue
        seen.add(asin)
        yield _prepare(normalize_product(raw, ins.get(asin)), seed, analyze, list(human.get(asin) or []))


# ------------------------------------------------------------------ build
def _fast_sqlite(engine) -> None:  # type: ignore[no-untyped-def]
    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection, _record):  # type: ignore[no-untyped-def]
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=OFF")
        cursor.execute("PRAGMA synchronous=OFF")
        cursor.close()


def build(
    out: Path | str,
    *,
    products: int | None = None,
    seed: int = 0,
    data: Path | str | None = None,
    db_url: str | None = None,
    shuffle_seed: int = SHUFFLE_SEED,
    progress: Callable[[int], None] | None = None,
) -> Manifest:
    """Build a data directory at `out` from WebShop's files in `data`, or a generated catalog.

    `products` is the generated catalog's size, or for WebShop files how many records to read
    (WebShop's `num_products`; all when None). `db_url` puts the catalog in that database
    (its WebShop tables are replaced) instead of a SQLite file in `out`.
    """
    started = time.perf_counter()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.building-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        if data is not None:
            source = str(Path(data).resolve())
            items = _webshop_files(Path(data), products, seed)
        else:
            source = "generated"
            items = _generated(products or DEFAULT_PRODUCTS, seed)
        url = db_url or f"sqlite:///{tmp / SQLITE_FILE}"
        engine = catalog_engine(url, read_only=False)
        if url.startswith("sqlite"):
            _fast_sqlite(engine)
        CatalogBase.metadata.drop_all(engine)
        CatalogBase.metadata.create_all(engine)

        index = IndexBuilder()
        goal_counts = array("q")
        humans: list[HumanInstruction] = []
        batch: list[dict[str, Any]] = []
        count = 0
        with engine.begin() as conn:
            for row, tokens, goals, human_ins in items:
                idx = count
                count += 1
                row["idx"] = idx
                batch.append(row)
                index.add_tokens(tokens)
                goal_counts.append(goals)
                for entry in human_ins:
                    if entry.get("instruction_attributes"):  # WebShop skips goals without attributes
                        humans.append(HumanInstruction(
                            idx, entry["instruction"], list(entry["instruction_attributes"]),
                            list(entry.get("instruction_options") or []),
                        ))
                if len(batch) >= _BATCH:
                    conn.execute(insert(ProductRow.__table__), batch)
                    batch.clear()
                    if progress:
                        progress(count)
            if batch:
                conn.execute(insert(ProductRow.__table__), batch)
            for start in range(0, len(humans), _BATCH):
                conn.execute(insert(HumanGoalRow.__table__), [
                    {"idx": start + i, **asdict(h)} for i, h in enumerate(humans[start : start + _BATCH])
                ])
        if progress:
            progress(count)
        engine.dispose()
        if count == 0:
            raise BadRecord("no usable products")

        index.save(tmp / "index")
        del index
        counts = np.frombuffer(goal_counts, dtype=np.int64)
        offsets = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        np.save(tmp / "synthetic_offsets.npy", offsets)
        np.save(tmp / "synthetic_order.npy", shuffled_order(int(offsets[-1]), shuffle_seed))
        if humans:
            np.save(tmp / "human_order.npy", shuffled_order(len(humans), shuffle_seed))

        manifest = Manifest(
            format_version=FORMAT_VERSION, source=source, products=count, seed=seed,
            shuffle_seed=shuffle_seed,
            catalog=SQLITE_FILE if db_url is None else make_url(db_url).render_as_string(hide_password=True),
            synthetic_goals=int(offsets[-1]), human_goals=len(humans),
            build_seconds=round(time.perf_counter() - started, 3),
        )
        (tmp / MANIFEST).write_text(json.dumps(asdict(manifest), indent=2))
        if out.exists():
            shutil.rmtree(out)
        os.rename(tmp, out)
        return manifest
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ------------------------------------------------------------------ default build on first use
def cache_root() -> Path:
    return Path(os.environ.get("COEVO_CACHE_DIR") or Path.home() / ".cache" / "coevo")


def default_data_dir(products: int = DEFAULT_PRODUCTS, seed: int = 0) -> Path:
    return cache_root() / "webshop" / f"{products}-{seed}"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def ensure_built(products: int = DEFAULT_PRODUCTS, seed: int = 0) -> Path:
    """The default data directory for a generated catalog, built now if absent (once per machine)."""
    folder = default_data_dir(products, seed)
    if (folder / MANIFEST).is_file():
        return folder
    with _locked(folder.parent / f".{folder.name}.lock"):
        if not (folder / MANIFEST).is_file():
            build(folder, products=products, seed=seed)
    return folder
