"""Reading a loaded task file's question: the first of a kind's regular expressions that matches
it, kinds in their data file's order. The tool envs that serve AgentBoard's files (weather,
movie) keep their kinds and patterns as data and turn a match into their own Question."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence


def first_match(patterns: Mapping[str, Sequence[re.Pattern[str]]], goal: str) -> tuple[str, dict[str, str]] | None:
    """(kind, the named groups that matched) of the first pattern that finds `goal`, else None."""
    for kind, kind_patterns in patterns.items():
        for pattern in kind_patterns:
            found = pattern.search(goal)
            if found:
                return kind, {k: v for k, v in found.groupdict().items() if v is not None}
    return None
