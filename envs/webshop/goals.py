"""WebShop's goals: synthetic (one per product option combination) or human-written.

WebShop builds the goal list in catalog order — synthetic: every product with an instruction,
one goal per combination of its option values (option names sorted, `itertools.product`
order); human: every items_human_ins.json instruction with attributes — then shuffles it with
`random.seed(233)`. Session index i is the i-th goal after that shuffle; evaluations use the
first 500 as test, the next 1,000 as eval and the rest as train.

Millions of synthetic goals are never materialised: the build stores each product's first goal
number (`offsets`) and the shuffled order as memory-mapped arrays; a goal is decoded when a
session starts. WebShop draws the price ceiling from the global random state; we draw it from a
random stream seeded by (catalog seed, goal number), so it is the same in every process.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from coevo.envs.webshop.catalog import Catalog, StoredProduct
from coevo.envs.webshop.scoring import NO_PRICE_LIMIT, GoalSpec

#: WebShop's price ceilings: the multiples of 10 up to 990.
PRICE_RANGE = tuple(10.0 * i for i in range(1, 100))
#: WebShop's goal shuffle seed.
SHUFFLE_SEED = 233
SPLIT_SIZES = (("test", 500), ("eval", 1000))


def price_clause(price: float, rng: random.Random) -> tuple[float, str]:
    """WebShop's ceiling: the larger of two draws among the first four multiples of 10 above the
    price, and its instruction suffix; no ceiling (and no suffix) when fewer than two exist."""
    candidates = [p for p in PRICE_RANGE if p > price][:4]
    if len(candidates) >= 2:
        _, upper = sorted(rng.sample(candidates, 2))
        return upper, f", and price lower than {upper:.2f} dollars"
    return NO_PRICE_LIMIT, ""


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
            self.product.title, self.product.query, self.product.product_category,
            self.attributes, self.options, self.price_upper,
        )


class GoalSet:
    """One kind of goals of a built catalog, in WebShop's shuffled order."""

    def __init__(self, folder: Path, kind: str, catalog: Catalog, price_seed: int) -> None:
        if kind not in ("synthetic", "human"):
            raise ValueError(f"unknown goal kind {kind!r}")
        self.kind = kind
        self.catalog = catalog
        self.price_seed = price_seed
        self.order = np.load(folder / f"{kind}_order.npy", mmap_mode="r")
        self.offsets = np.load(folder / "synthetic_offsets.npy", mmap_mode="r") if kind == "synthetic" else None
        self.total = int(len(self.order))
        self.ranges = split_ranges(self.total)

    def _rng(self, number: int) -> random.Random:
        return random.Random(f"webshop-price:{self.price_seed}:{self.kind}:{number}")

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
