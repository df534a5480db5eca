"""WebShop's data files and how WebShop turns their records into products.

Formats (WebShop's `data/` folder):
* items_shuffle*.json — a JSON array of products: asin, name, full_description,
  small_description (bullet points: a list or one string), pricing ("$x" or "$x$y"),
  customization_options ({name: [{value, image}]}), category, query, product_category, images;
* items_ins_v2*.json — a JSON object asin -> {attributes, instruction, instruction_attributes};
* items_human_ins.json — a JSON object asin -> [{instruction, instruction_attributes,
  instruction_options, ...}] (human-written goals).

`normalize_product` applies WebShop's `load_products` rules; the readers stream, so a
multi-GB items_shuffle.json never sits in memory whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

DUMMY_ATTR = "DUMMY_ATTR"
_NOT_PRICE = re.compile(r"[^\d.]")
_CHUNK = 1 << 22


class BadRecord(ValueError):
    """A record that WebShop's loader could not read either."""


@dataclass
class Product:
    """One product as WebShop's loader leaves it (the fields its pages and reward read)."""

    asin: str
    title: str
    description: str
    bullet_points: list[str]
    pricing: list[float]
    price_tag: str
    options: dict[str, list[str]]
    attributes: list[str]
    category: str
    query: str
    product_category: str
    instruction: str | None = None
    instruction_attributes: list[str] = field(default_factory=list)

    def document(self) -> str:
        """WebShop's search document: title, description, first bullet point and options text."""
        option_text = ", and ".join(f"{name}: {', '.join(values)}" for name, values in self.options.items())
        first_bullet = self.bullet_points[0] if self.bullet_points else ""
        return " ".join([self.title, self.description, first_bullet, option_text]).lower()


def parse_pricing(pricing: str | None) -> tuple[list[float], str]:
    """WebShop's price parsing: "$x" -> [x], "$x$y" -> [x, y]; missing -> $100.0."""
    if not pricing:
        return [100.0], "$100.0"
    try:
        values = [float(Decimal(_NOT_PRICE.sub("", part))) for part in pricing.split("$")[1:]]
    except InvalidOperation as exc:
        raise BadRecord(f"unreadable pricing {pricing!r}") from exc
    if not values:
        raise BadRecord(f"unreadable pricing {pricing!r}")
    if len(values) == 1:
        return values, f"${values[0]}"
    return values[:2], f"${values[0]} to ${values[1]}"


def option_value(raw: str) -> str:
    """How WebShop shows an option value: stripped, "/" spelled " | ", lower-cased."""
    return raw.strip().replace("/", " | ").lower()


def normalize_options(customization: Mapping[str, Any] | None) -> dict[str, list[str]]:
    options: dict[str, list[str]] = {}
    for name, contents in (customization or {}).items():
        if contents is None:
            continue
        options[name.lower()] = [option_value(c["value"]) for c in contents]
    return options


def usable_asin(asin: Any) -> bool:
    """WebShop skips "nan" and over-long ASINs."""
    return isinstance(asin, str) and asin != "nan" and len(asin) <= 10


def normalize_product(raw: Mapping[str, Any], ins: Mapping[str, Any] | None) -> Product:
    """One items_shuffle record (plus its items_ins_v2 entry) as WebShop's loader reads it."""
    try:
        small = raw["small_description"]
        pricing, price_tag = parse_pricing(raw.get("pricing"))
        attributes = list(ins["attributes"]) if ins and "attributes" in ins else [DUMMY_ATTR]
        return Product(
            asin=raw["asin"],
            title=raw["name"],
            description=raw["full_description"],
            bullet_points=list(small) if isinstance(small, list) else [small],
            pricing=pricing,
            price_tag=price_tag,
            options=normalize_options(raw.get("customization_options")),
            attributes=attributes,
            category=raw["category"],
            query=raw["query"].lower().strip(),
            product_category=raw["product_category"],
            instruction=(ins or {}).get("instruction"),
            instruction_attributes=list((ins or {}).get("instruction_attributes") or []),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise BadRecord(f"product {raw.get('asin')!r}: missing or malformed field ({exc})") from exc


# ------------------------------------------------------------------ streaming JSON
class _Stream:
    """A growing text buffer over a file, for incremental `raw_decode`."""

    def __init__(self, path: Path) -> None:
        self.file = open(path, encoding="utf-8")
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.decoder = json.JSONDecoder()

    def close(self) -> None:
        self.file.close()

    def _more(self) -> bool:
        if self.eof:
            return False
        chunk = self.file.read(_CHUNK)
        if not chunk:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next non-whitespace character ("" at the end)."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._more():
                return ""

    def expect(self, chars: str) -> str:
        c = self.peek()
        if not c or c not in chars:
            raise BadRecord(f"expected one of {chars!r} at offset {self.pos}, found {c!r}")
        self.pos += 1
        return c

    def value(self) -> Any:
        self.peek()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                if self._more():
                    continue
                raise
            # A number at the very end of the buffer may continue in the next chunk.
            if end == len(self.buf) and not self.eof and self._more():
                continue
            self.pos = end
            return value


def iter_array(path: Path) -> Iterator[Any]:
    """The items of a top-level JSON array, one at a time."""
    stream = _Stream(path)
    try:
        stream.expect("[")
        if stream.peek() == "]":
            return
        while True:
            yield stream.value()
            if stream.expect(",]") == "]":
                return
    finally:
        stream.close()


def iter_object(path: Path) -> Iterator[tuple[str, Any]]:
    """The (key, value) pairs of a top-level JSON object, one at a time."""
    stream = _Stream(path)
    try:
        stream.expect("{")
        if stream.peek() == "}":
            return
        while True:
            key = stream.value()
            stream.expect(":")
            yield key, stream.value()
            if stream.expect(",}") == "}":
                return
    finally:
        stream.close()


# ------------------------------------------------------------------ locating the files
def find_file(folder: Path, stem: str, required: bool = True) -> Path | None:
    """`stem`.json if present, else the largest `stem`_*.json (e.g. items_shuffle_1000.json)."""
    exact = folder / f"{stem}.json"
    if exact.is_file():
        return exact
    candidates = sorted(folder.glob(f"{stem}_*.json"), key=lambda p: p.stat().st_size, reverse=True)
    if candidates:
        return candidates[0]
    if required:
        raise FileNotFoundError(f"no {stem}.json or {stem}_*.json in {folder}")
    return None
