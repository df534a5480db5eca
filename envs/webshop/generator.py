"""A generated catalog in WebShop's own file formats, deterministic by seed, any size.

`generate(n, seed)` yields (items_shuffle record, items_ins_v2 record) pairs exactly as
WebShop's files hold them, so generated and real data go through the same loader. Products come
in blocks of BLOCK, each drawn from its own random stream seeded by (seed, block), so a smaller
catalog is a prefix of a larger one with the same seed, as WebShop's items_shuffle_1000.json
is a prefix of items_shuffle.json.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from coevo.envs.webshop.vocab import (
    BRAND_ENDINGS,
    BRAND_SYLLABLES,
    CATEGORIES,
    DESCRIPTION_CLOSERS,
    DESCRIPTION_OPENERS,
    TITLE_QUALIFIERS,
    ProductType,
)

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
