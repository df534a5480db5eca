"""Word lists for the generated catalog: WebShop's five categories and product types in them.

Each product type carries its Amazon-style search query (WebShop's `query`), the category
breadcrumb (`product_category`, levels joined by " › "), head nouns for titles, the attribute
phrases instructions ask for, bullet-point features and its option groups. Option values are
chosen so that WebShop's colour normalisation never turns one into a colour it does not
contain as a whole word (tests/webshop checks every value).

The lists themselves are data/vocab.json: named option-value lists (an option names one or
lists its own values), the words of brands, titles and descriptions, and the product types.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

VOCAB_FILE = Path(__file__).parent / "data" / "vocab.json"


@dataclass(frozen=True)
class ProductType:
    query: str
    product_category: str
    heads: tuple[str, ...]
    attributes: tuple[str, ...]
    features: tuple[str, ...]
    options: tuple[tuple[str, tuple[str, ...]], ...]
    price: tuple[float, float]
    audience: str = ""


def _product_type(entry: dict[str, Any], named: dict[str, tuple[str, ...]]) -> ProductType:
    options = tuple(
        (name, named[values] if isinstance(values, str) else tuple(values)) for name, values in entry["options"]
    )
    low, high = entry["price"]
    return ProductType(
        entry["query"],
        entry["product_category"],
        tuple(entry["heads"]),
        tuple(entry["attributes"]),
        tuple(entry["features"]),
        options,
        (float(low), float(high)),
        entry.get("audience", ""),
    )


_DATA = json.loads(VOCAB_FILE.read_text(encoding="utf-8"))
_VALUES: dict[str, tuple[str, ...]] = {name: tuple(values) for name, values in _DATA["option_values"].items()}
_WORDS: dict[str, tuple[str, ...]] = {name: tuple(words) for name, words in _DATA["words"].items()}

COLORS = _VALUES["COLORS"]
APPAREL_SIZES = _VALUES["APPAREL_SIZES"]
SHOE_SIZES = _VALUES["SHOE_SIZES"]
SHOE_WIDTHS = _VALUES["SHOE_WIDTHS"]
PACKS = _VALUES["PACKS"]
OUNCES = _VALUES["OUNCES"]
COUNTS = _VALUES["COUNTS"]
BED_SIZES = _VALUES["BED_SIZES"]
DIMENSIONS = _VALUES["DIMENSIONS"]
LENGTHS = _VALUES["LENGTHS"]
CAPACITIES = _VALUES["CAPACITIES"]
FLAVORS = _VALUES["FLAVORS"]
SCENTS = _VALUES["SCENTS"]
STYLES = _VALUES["STYLES"]

CATEGORIES: dict[str, tuple[ProductType, ...]] = {
    category: tuple(_product_type(entry, _VALUES) for entry in entries)
    for category, entries in _DATA["categories"].items()
}

#: Words for brand names (two syllables joined), title fillers and descriptions.
BRAND_SYLLABLES = _WORDS["BRAND_SYLLABLES"]
BRAND_ENDINGS = _WORDS["BRAND_ENDINGS"]
TITLE_QUALIFIERS = _WORDS["TITLE_QUALIFIERS"]
DESCRIPTION_OPENERS = _WORDS["DESCRIPTION_OPENERS"]
DESCRIPTION_CLOSERS = _WORDS["DESCRIPTION_CLOSERS"]
