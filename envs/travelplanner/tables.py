"""Tool results rendered as text tables, laid out like pandas' `DataFrame.to_string(index=False)`.

The official tools return DataFrames and the agent sees `to_string(index=False)`; rendering the
same layout here (right-justified columns under the CSV headers, float columns printed with
six decimals and common trailing zeros trimmed, a leading space before numeric headers) gives agents the observations they were
prompted and fine-tuned on, without pandas on the server path.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

_PRECISION = 6


def _float_column(values: Sequence[float]) -> list[str]:
    """pandas' float formatting: fixed 6 decimals, then trailing zeros trimmed column-wide."""
    texts = [f"{v:.{_PRECISION}f}" for v in values]
    while texts and all(t.endswith("0") and not t.endswith(".0") for t in texts):
        texts = [t[:-1] for t in texts]
    return texts


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _column_texts(values: Sequence[Any]) -> tuple[list[str], bool]:
    """The cells of one column, and whether pandas would treat it as numeric."""
    if values and all(_is_number(v) for v in values):
        if any(isinstance(v, float) for v in values):
            return _float_column([float(v) for v in values]), True
        return [str(v) for v in values], True
    return [str(v) for v in values], False


def render_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """The rows as pandas would print them with `to_string(index=False)`."""
    if not rows:
        return "Empty DataFrame\nColumns: [" + ", ".join(columns) + "]\nIndex: []"
    formatted = [_column_texts([row[i] for row in rows]) for i in range(len(columns))]
    cells = [texts for texts, _ in formatted]
    # pandas gives the header of a numeric column one leading space.
    headers = [(" " + h) if numeric else h for h, (_, numeric) in zip(columns, formatted)]
    widths = [max(len(header), *(len(t) for t in texts)) for header, texts in zip(headers, cells)]
    lines = [" ".join(header.rjust(w) for header, w in zip(headers, widths))]
    for r in range(len(rows)):
        lines.append(" ".join(cells[c][r].rjust(widths[c]) for c in range(len(columns))))
    return "\n".join(lines)
