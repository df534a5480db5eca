"""A literal-only reader for an `Action Input`, where AgentGym's tool servers call `eval`.

`ast.literal_eval` accepts exactly Python's literal displays: strings, bytes, numbers (with a
sign, and complex sums), True/False/None, and tuples, lists, sets and dicts of them. Everything
else `eval` would run is refused, and refused the way the original answers an input `eval`
cannot read, so an agent sees the same text. Refused (docs/toolusage.md lists them):

* names other than True/False/None (`true`, `null`, `inf`, a variable): `eval` fails on these too;
* arithmetic beyond a sign (`20.1 - 3.2`, `2 * 3`, `10 ** 9`), comparisons, boolean operators;
* calls, attribute access, subscripts, comprehensions, lambdas, f-strings, `:=`, starred items;
* input nested deeper than `MAX_DEPTH` brackets, and integers Python refuses to read (over 4300
  digits).
"""

from __future__ import annotations

import ast
from typing import Any

#: Bracket nesting the reader accepts; deeper input is refused before parsing (the parser's own
#: recursion would otherwise be the limit, and a 64 KiB action can nest far beyond it).
MAX_DEPTH = 100


class NotALiteral(ValueError):
    """The text is not a Python literal display (or nests deeper than MAX_DEPTH)."""


def _depth(text: str) -> int:
    depth = deepest = 0
    for ch in text:
        if ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth -= 1
    return deepest


def read_literal(text: str) -> Any:
    """The value of `text` as a Python literal; raises NotALiteral for anything else."""
    if _depth(text) > MAX_DEPTH:
        raise NotALiteral(f"nested deeper than {MAX_DEPTH} brackets")
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError) as exc:
        raise NotALiteral(str(exc)) from None
