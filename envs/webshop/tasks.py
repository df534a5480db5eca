"""WebShop's task source: its goals, from WebShop's own files or a generated catalog, built
once into a data directory that every server reads.

Three parts, in this order:

* The generated catalog. `generate(n, seed)` yields (items_shuffle record, items_ins_v2 record)
  pairs exactly as WebShop's files hold them, so generated and real data go through the same
  loader. Products come in blocks of BLOCK, each drawn from its own random stream seeded by
  (seed, block), so a smaller catalog is a prefix of a larger one with the same seed, as
  WebShop's items_shuffle_1000.json is a prefix of items_shuffle.json.

* The goals: synthetic (one per product option combination) or human-written. WebShop builds
  the goal list in catalog order — synthetic: every product with an instruction, one goal per
  combination of its option values (option names sorted, `itertools.product` order); human:
  every items_human_ins.json instruction with attributes — then shuffles it with
  `random.seed(233)`. Session index i is the i-th goal after that shuffle; evaluations use the
  first 500 as test, the next 1,000 as eval and the rest as train. Millions of synthetic goals
  are never materialised: the build stores each product's first goal number (`offsets`) and the
  shuffled order as memory-mapped arrays; a goal is decoded when a session starts. WebShop
  draws the price ceiling from the global random state; we draw it from a random stream seeded
  by (catalog seed, goal number), so it is the same in every process, except for synthetic
  goals of WebShop's own files, which draw it as AgentGym's shop server does
  (`agentgym_ceilings`), so that AgentGym's index i and our task i are the same goal.

* The build of a data directory, once: catalog (SQL), BM25 index and goal arrays.

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
import math
import os
import random
import shutil
import threading
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import event, insert
from sqlalchemy.engine import make_url

from coevo.envs.webshop.catalog import Catalog, CatalogBase, HumanGoalRow, ProductRow, StoredProduct, catalog_engine
from coevo.envs.webshop.records import (
    BadRecord,
    Product,
    find_file,
    iter_array,
    iter_object,
    normalize_product,
    usable_asin,
)
from coevo.envs.webshop.scoring import NO_PRICE_LIMIT, GoalSpec
from coevo.envs.webshop.search import Analyzer, IndexBuilder
from coevo.envs.webshop.vocab import (
    BRAND_ENDINGS,
    BRAND_SYLLABLES,
    CATEGORIES,
    DESCRIPTION_CLOSERS,
    DESCRIPTION_OPENERS,
    TITLE_QUALIFIERS,
    ProductType,
)


# ------------------------------------------------------------------ generated catalog
MIN_PRODUCTS = 100
MAX_PRODUCTS = 1_181_436  # WebShop's full catalog

_TYPES: tuple[tuple[str, ProductType], ...] = tuple(
    (category, kind) for category, kinds in CATEGORIES.items() for kind in kinds
)
_ASIN_SPACE = 36**8
_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def asin_for(index: int, seed: int) -> str:
    """A unique ASIN-like id: "B0" + 8 base-36 characters of an affine bijection of `index`."""
    multiplier = 1_000_003 * (2 * (seed % 1000) + 1)  # odd and prime to 3: a bijection mod 36^8
    value = (index * multiplier + 7_919 * (seed + 1)) % _ASIN_SPACE
    chars = []
    for _ in range(8):
        value, digit = divmod(value, 36)
        chars.append(_DIGITS[digit])
    return "B0" + "".join(reversed(chars))


@lru_cache(maxsize=4096)
def _title_case(phrase: str) -> str:
    return " ".join(w if any(c.isdigit() for c in w) else w[:1].upper() + w[1:] for w in phrase.split())


def _brand(rng: random.Random) -> str:
    return (rng.choice(BRAND_SYLLABLES) + rng.choice(BRAND_SYLLABLES) + rng.choice(BRAND_ENDINGS)).capitalize()


def _price(rng: random.Random, low: float, high: float) -> str:
    a = round(rng.uniform(low, high)) - 0.01
    if rng.random() < 0.3:
        b = a + round(rng.uniform(2, max(3.0, (high - low) / 3)))
        return f"${a:.2f}${b:.2f}"
    return f"${a:.2f}"


def _instruction(rng: random.Random, query: str, wanted: list[str]) -> str:
    """WebShop's synthetic instruction shape: "Find me {attrs} {query} with {attrs}"."""
    cut = rng.randint(0, len(wanted))
    before, after = wanted[:cut], wanted[cut:]
    text = "Find me " + (", ".join(before) + " " if before else "") + query
    return text + (" with " + ", ".join(after) if after else "")


BLOCK = 256


def _product(rng: random.Random, index: int, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    category, kind = _TYPES[rng.randrange(len(_TYPES))]
    asin = asin_for(index, seed)
    brand = _brand(rng)
    attributes = rng.sample(kind.attributes, rng.randint(3, min(5, len(kind.attributes))))
    wanted = attributes[: rng.randint(1, 3)]
    head = rng.choice(kind.heads)
    extra = [a for a in kind.attributes if a not in attributes]

    title_parts = [brand]
    if rng.random() < 0.5:
        title_parts.append(rng.choice(TITLE_QUALIFIERS))
    if kind.audience:
        title_parts.append(kind.audience)
    title_parts += [_title_case(a) for a in attributes[:2]] + [head]
    if rng.random() < 0.6:
        title_parts.append(_title_case(rng.choice(attributes[2:] + extra[:1])))
    if rng.random() < 0.4:
        title_parts.append(f"- {_title_case(rng.choice(kind.heads))}")
    title = " ".join(title_parts)

    features = rng.sample(kind.features, len(kind.features))
    bullets = [f"{a.upper()}: {f[:1].upper()}{f[1:]}." for a, f in zip(attributes, features + features)]
    noun = head.lower()
    description = (
        f"{rng.choice(DESCRIPTION_OPENERS)} {noun} from {brand} brings {', '.join(attributes[:-1])} "
        f"and {attributes[-1]} together. {features[0][:1].upper()}{features[0][1:]}, and "
        f"{features[-1]}. {rng.choice(DESCRIPTION_CLOSERS)}"
    )

    customization: dict[str, list[dict[str, str]]] = {}
    for name, values in kind.options:
        if rng.random() < 0.08:  # some listings offer no choice in a group
            continue
        picked = rng.sample(values, rng.randint(1, min(4, len(values))))
        customization[name] = [
            {"value": _title_case(v), "image": f"https://images.example.invalid/{asin}/{name}/{i}.jpg"}
            for i, v in enumerate(picked)
        ]

    record = {
        "asin": asin,
        "name": title,
        "full_description": description,
        "small_description": bullets,
        "pricing": _price(rng, *kind.price),
        "customization_options": customization,
        "category": category,
        "query": kind.query,
        "product_category": kind.product_category,
        "images": [f"https://images.example.invalid/{asin}/main.jpg"],
    }
    ins = {
        "asin": asin,
        "attributes": attributes,
        "instruction": _instruction(rng, kind.query, wanted),
        "instruction_attributes": wanted,
    }
    return record, ins


def _block_rng(block: int, seed: int) -> random.Random:
    return random.Random(seed * 4_294_967_296 + block)


def check_size(n: int) -> None:
    if not MIN_PRODUCTS <= n <= MAX_PRODUCTS:
        raise ValueError(f"a generated catalog has {MIN_PRODUCTS}..{MAX_PRODUCTS} products, not {n}")


def generate(n: int, seed: int = 0) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Products 0..n-1 of catalog `seed`: (items_shuffle record, items_ins_v2 record) pairs."""
    check_size(n)
    return generate_range(0, n, seed)


def generate_range(start: int, stop: int, seed: int = 0) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Products start..stop-1 of catalog `seed` (any range: blocks make them independent)."""
    rng = _block_rng(start // BLOCK, seed)
    for index in range(start - start % BLOCK, start):
        _product(rng, index, seed)
    for index in range(start, stop):
        if index % BLOCK == 0 and index != start:
            rng = _block_rng(index // BLOCK, seed)
        yield _product(rng, index, seed)


def generate_product(index: int, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Product `index` of catalog `seed` alone."""
    return next(generate_range(index, index + 1, seed))


# ------------------------------------------------------------------ goals
#: WebShop's price ceilings: the multiples of 10 up to 990.
PRICE_RANGE = tuple(10.0 * i for i in range(1, 100))
#: WebShop's goal shuffle seed.
SHUFFLE_SEED = 233
#: What AgentGym's get_synthetic_goals seeds before it draws the price ceilings.
AGENTGYM_CEILING_SEED = 233
#: How a synthetic goal's price ceiling is drawn: "seeded" (a stream per goal, seeded by the
#: catalog seed and goal number) or "agentgym" (AgentGym's one stream over the catalog).
CEILING_RULES = ("seeded", "agentgym")
SPLIT_SIZES = (("test", 500), ("eval", 1000))


def price_clause(price: float, rng: random.Random) -> tuple[float, str]:
    """WebShop's ceiling: the larger of two draws among the first four multiples of 10 above the
    price, and its instruction suffix; no ceiling (and no suffix, and no draw) when fewer than
    two exist."""
    candidates = [p for p in PRICE_RANGE if p > price][:4]
    if len(candidates) >= 2:
        _, upper = sorted(rng.sample(candidates, 2))
        return upper, _price_text(upper)
    return NO_PRICE_LIMIT, ""


def _price_text(upper: float) -> str:
    return "" if upper == NO_PRICE_LIMIT else f", and price lower than {upper:.2f} dollars"


def agentgym_ceilings(products: Iterable[tuple[float, bool]]) -> np.ndarray:
    """Each product's synthetic-goal price ceiling as AgentGym's shop server draws it.

    Its `get_synthetic_goals` seeds `random.seed(233)` and draws WebShop's ceiling once per
    product with an instruction, in catalog order, for all that product's goals (WebShop's own
    draws from the unseeded global state). `products`: (price, has an instruction) in catalog
    order; NaN for products without an instruction (no goals, no draw).
    """
    rng = random.Random(AGENTGYM_CEILING_SEED)
    return np.asarray(
        [price_clause(price, rng)[0] if has_instruction else math.nan for price, has_instruction in products],
        dtype=np.float64,
    )


def combinations(options: Mapping[str, Sequence[str]]) -> int:
    """How many synthetic goals a product's options make."""
    return math.prod(len(v) for v in options.values())


def combination(options: Mapping[str, Sequence[str]], number: int) -> dict[str, str]:
    """The `number`-th option combination in WebShop's order (names sorted, last name fastest)."""
    names = sorted(options)
    chosen: dict[str, str] = {}
    for name in reversed(names):
        number, pick = divmod(number, len(options[name]))
        chosen[name] = options[name][pick]
    return {name: chosen[name] for name in names}


def shuffled_order(total: int, seed: int = SHUFFLE_SEED) -> np.ndarray:
    """WebShop's goal order: `random.seed(seed); random.shuffle(goals)` on goal numbers."""
    order = list(range(total))
    random.Random(seed).shuffle(order)
    return np.asarray(order, dtype=np.int64 if total >= 2**31 else np.int32)


def split_ranges(total: int) -> dict[str, tuple[int, int]]:
    """Positions of each split in the shuffled goal list."""
    ranges: dict[str, tuple[int, int]] = {}
    start = 0
    for name, size in SPLIT_SIZES:
        stop = min(total, start + size)
        ranges[name] = (start, stop)
        start = stop
    ranges["train"] = (start, total)
    return ranges


@dataclass(frozen=True)
class Goal:
    number: int
    kind: str  # "synthetic" | "human"
    product: StoredProduct
    instruction_text: str
    attributes: tuple[str, ...]
    options: Mapping[str, str] | tuple[str, ...]
    price_upper: float

    def spec(self) -> GoalSpec:
        return GoalSpec(
            self.product.title,
            self.product.query,
            self.product.product_category,
            self.attributes,
            self.options,
            self.price_upper,
        )


class GoalSet:
    """One kind of goals of a built catalog, in WebShop's shuffled order.

    `ceilings` (synthetic goals only) picks how price ceilings are drawn (CEILING_RULES); the
    "agentgym" table is computed on first use, one pass over the catalog's prices.
    """

    def __init__(self, folder: Path, kind: str, catalog: Catalog, price_seed: int, ceilings: str = "seeded") -> None:
        if kind not in ("synthetic", "human"):
            raise ValueError(f"unknown goal kind {kind!r}")
        if ceilings not in CEILING_RULES or (ceilings != "seeded" and kind != "synthetic"):
            raise ValueError(f"unknown price-ceiling rule {ceilings!r} for {kind} goals")
        self.kind = kind
        self.catalog = catalog
        self.price_seed = price_seed
        self.ceilings = ceilings
        self._table: np.ndarray | None = None
        self._table_lock = threading.Lock()
        self.order = np.load(folder / f"{kind}_order.npy", mmap_mode="r")
        self.offsets = np.load(folder / "synthetic_offsets.npy", mmap_mode="r") if kind == "synthetic" else None
        self.total = int(len(self.order))
        self.ranges = split_ranges(self.total)

    def _rng(self, number: int) -> random.Random:
        return random.Random(f"webshop-price:{self.price_seed}:{self.kind}:{number}")

    def _agentgym_ceiling(self, idx: int) -> float:
        with self._table_lock:
            if self._table is None:
                self._table = agentgym_ceilings(self.catalog.prices_and_instructions())
            return float(self._table[idx])

    def at(self, position: int) -> Goal:
        """The goal at a position of the shuffled list (the task id)."""
        if not 0 <= position < self.total:
            raise IndexError(position)
        number = int(self.order[position])
        if self.kind == "synthetic":
            assert self.offsets is not None
            idx = int(np.searchsorted(self.offsets, number, side="right")) - 1
            product = self.catalog.product(idx)
            options = combination(product.options, number - int(self.offsets[idx]))
            if self.ceilings == "agentgym":
                upper = self._agentgym_ceiling(idx)
                price_text = _price_text(upper)
            else:
                upper, price_text = price_clause(product.price, self._rng(number))
            option_text = ", and ".join(f"{k}: {v}" for k, v in options.items())
            option_text = " with " + option_text if option_text else ""
            text = f"{product.instruction}{option_text}{price_text}"
            return Goal(number, "synthetic", product, text, product.instruction_attributes, options, upper)
        row = self.catalog.human_goal(number)
        product = self.catalog.product(row.product_idx)
        upper, price_text = price_clause(product.price, self._rng(number))
        text = row.instruction.strip(".") + price_text
        return Goal(number, "human", product, text, tuple(row.attributes), tuple(row.options), upper)


# ------------------------------------------------------------------ data directory
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
        "asin": product.asin,
        "title": product.title,
        "description": product.description,
        "bullet_points": product.bullet_points,
        "price_tag": product.price_tag,
        "price": product_price(product, seed),
        "options": product.options,
        "attributes": product.attributes,
        "category": product.category,
        "query": product.query,
        "product_category": product.product_category,
        "instruction": product.instruction,
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
                        humans.append(
                            HumanInstruction(
                                idx,
                                entry["instruction"],
                                list(entry["instruction_attributes"]),
                                list(entry.get("instruction_options") or []),
                            )
                        )
                if len(batch) >= _BATCH:
                    conn.execute(insert(ProductRow.__table__), batch)
                    batch.clear()
                    if progress:
                        progress(count)
            if batch:
                conn.execute(insert(ProductRow.__table__), batch)
            for start in range(0, len(humans), _BATCH):
                conn.execute(
                    insert(HumanGoalRow.__table__),
                    [{"idx": start + i, **asdict(h)} for i, h in enumerate(humans[start : start + _BATCH])],
                )
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
            format_version=FORMAT_VERSION,
            source=source,
            products=count,
            seed=seed,
            shuffle_seed=shuffle_seed,
            catalog=SQLITE_FILE if db_url is None else make_url(db_url).render_as_string(hide_password=True),
            synthetic_goals=int(offsets[-1]),
            human_goals=len(humans),
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
