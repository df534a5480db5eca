"""The formulas the original's tools write (`=OP(B2:D4)` or `=OP(B2,C3)`, OP one of its seven
operators), evaluated as Google Sheets does: references to text or empty cells are skipped by
SUM, AVERAGE, COUNT, MAX, MIN and PRODUCT; MINUS takes exactly two cells. Any other formula text
shows `#NAME?` (docs/sheet.md): nothing here evaluates arbitrary expressions."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator

from openpyxl.utils.cell import column_index_from_string

OPERATORS = ("SUM", "AVERAGE", "COUNT", "MAX", "MIN", "MINUS", "PRODUCT")
_FORMULA = re.compile(r"^=([A-Z]+)\(([^()]*)\)$")
_REF = re.compile(r"^([A-Z]{1,3})([0-9]+)$")


class FormulaError(ValueError):
    """The formula's error value (`#N/A`, `#VALUE!`, `#DIV/0!`, `#NAME?`, `#REF!`)."""


def _cells(part: str) -> Iterator[tuple[int, int]]:
    ends = part.split(":")
    refs = [_REF.match(end.strip()) for end in ends]
    if len(ends) > 2 or any(r is None for r in refs):
        raise FormulaError("#NAME?")
    rows = [int(r.group(2)) for r in refs if r is not None]
    cols = [column_index_from_string(r.group(1)) for r in refs if r is not None]
    for row in range(min(rows), max(rows) + 1):
        for col in range(min(cols), max(cols) + 1):
            yield row, col


def evaluate(text: str, read: Callable[[int, int], object]) -> float:
    """The formula's number; `read(row, col)` gives a referenced cell's value (a formula's own
    number, text or None). Raises FormulaError with the value the cell then shows."""
    if "#REF!" in text:
        raise FormulaError("#REF!")
    m = _FORMULA.match(text.replace(" ", ""))
    if m is None or m.group(1) not in OPERATORS:
        raise FormulaError("#NAME?")
    op, parts = m.group(1), [p for p in m.group(2).split(",") if p]
    if op == "MINUS":
        if len(parts) != 2 or any(":" in p for p in parts):
            raise FormulaError("#N/A")
        a, b = (read(*next(_cells(p))) for p in parts)
        pair = [0.0 if v is None else v for v in (a, b)]
        if not all(isinstance(v, (int, float)) for v in pair):
            raise FormulaError("#VALUE!")
        return float(pair[0]) - float(pair[1])  # type: ignore[arg-type]
    values = [read(r, c) for p in parts for r, c in _cells(p)]
    numbers: list[float] = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if op == "SUM":
        return math.fsum(numbers)
    if op == "COUNT":
        return float(len(numbers))
    if op == "PRODUCT":
        return math.prod(numbers) if numbers else 0.0
    if op == "AVERAGE":
        if not numbers:
            raise FormulaError("#DIV/0!")
        return math.fsum(numbers) / len(numbers)
    if not numbers:
        return 0.0
    return max(numbers) if op == "MAX" else min(numbers)
