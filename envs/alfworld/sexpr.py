"""A small reader for the Lisp-style text of PDDL files (comments dropped, case folded)."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[()]|[^\s()]+")


class SexprError(ValueError):
    """Unbalanced parentheses or an empty document."""


def parse_sexpr(text: str) -> list:
    """All top-level expressions of `text`, as nested lists of lowercase atoms."""
    lines = [line.split(";", 1)[0] for line in text.lower().splitlines()]
    stack: list[list] = [[]]
    for token in _TOKEN.findall("\n".join(lines)):
        if token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) == 1:
                raise SexprError("unbalanced ')'")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token)
    if len(stack) != 1:
        raise SexprError("unbalanced '('")
    if not stack[0]:
        raise SexprError("no expression")
    return stack[0]
