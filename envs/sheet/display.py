"""How Google Sheets shows a cell: the formatted text its API returns (`FORMATTED_VALUE`), which
is what the original's tools read, show and score. A cell here holds a value and a number format
(openpyxl's `number_format`, as Google's xlsx export writes it)."""

from __future__ import annotations

import re
from typing import Any

#: Number formats read as (thousands separator, decimals, percent); others show as "automatic".
_PLAIN = re.compile(r"^(#,##)?0(\.(0+))?(%)?$")


def general(number: float) -> str:
    """Google's automatic format: integers without a point, others to 10 decimals, trimmed."""
    if number == int(number) and abs(number) < 1e15:
        return str(int(number))
    return repr(round(number, 10))


def shown(value: Any, number_format: str = "General") -> str:
    """The cell's text as the API returns it ('' for an empty cell)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        m = _PLAIN.match(number_format or "")
        if m is None:
            return general(float(value))
        decimals = len(m.group(3) or "")
        number = float(value) * (100 if m.group(4) else 1)
        text = f"{number:,.{decimals}f}" if m.group(1) else f"{number:.{decimals}f}"
        return text + ("%" if m.group(4) else "")
    return str(value)
