"""Entity ids and the names players see.

ALFRED names things by type and position, `Cabinet|+00.68|+00.50|-02.20`; PDDL cannot hold
`|+-.,`, so game files spell them `Cabinet_bar__plus_00_dot_68_...`, and the planner lowercases
every id. ALFWorld shows each entity as "<type> <n>": the ids are sorted, the entities sharing a
type are counted, and numbers are handed out from the highest down, so the first id in sorted
order gets the largest number ("a cabinet 4, a cabinet 3, ..."). A sink or bathtub basin, whose
id ends in `...|SinkBasin`, is named "sinkbasin". Ids without a `|` part (the agent, types) keep
their text and get no number.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

_MANGLE = (("|", "_bar_"), ("-", "_minus_"), ("+", "_plus_"), (".", "_dot_"), (",", "_comma_"))


def mangle(alfred_id: str) -> str:
    """`Cabinet|+00.68|...` -> `Cabinet_bar__plus_00_dot_68_...` (the PDDL spelling)."""
    for char, word in _MANGLE:
        alfred_id = alfred_id.replace(char, word)
    return alfred_id


def demangle(pddl_id: str) -> str:
    for char, word in _MANGLE:
        pddl_id = pddl_id.replace(word, char)
    return pddl_id


def _base(pddl_id: str) -> str | None:
    """The counted name of an id, or None for ids that carry no number."""
    head, sep, _ = pddl_id.partition("_bar_")
    if not sep:
        return None
    return head + "basin" if "basin" in pddl_id else head


def display_names(pddl_ids: Iterable[str]) -> dict[str, str]:
    """Player-facing names for every (lowercase) entity id of one game."""
    ordered = sorted(set(pddl_ids))
    left = Counter(base for base in map(_base, ordered) if base is not None)
    names: dict[str, str] = {}
    for pddl_id in ordered:
        text = demangle(pddl_id)
        head, sep, _ = text.partition("|")
        if not sep:
            names[pddl_id] = f"{text} "
            continue
        base = head + "basin" if "basin" in pddl_id else head
        names[pddl_id] = f"{base} {left[base]}"
        left[base] -= 1
    return names


def format_coordinate(value: float) -> str:
    """ALFRED's coordinate spelling: `+00.95`, `-01.21`, and `00.00` for zero."""
    text = f"{abs(value):05.2f}"
    if text == "00.00":
        return text
    return ("+" if value > 0 else "-") + text


def alfred_id(kind: str, x: float, y: float, z: float, suffix: str = "") -> str:
    """An ALFRED object id, e.g. `Apple|-01.96|+00.95|+00.46` (`|SinkBasin` for basins)."""
    text = f"{kind}|{format_coordinate(x)}|{format_coordinate(y)}|{format_coordinate(z)}"
    return f"{text}|{suffix}" if suffix else text


def location_id(x: float, z: float, rotation: float, horizon: float) -> str:
    """ALFWorld's location id for an interaction pose: grid x, grid z, quarter turns, camera tilt."""
    return f"loc|{round(x / 0.25)}|{round(z / 0.25)}|{round(rotation / 90) % 4}|{round(horizon)}"
