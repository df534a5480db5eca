"""Why a task of AgentBoard's weather file gets no plan, in words the benchmark lists
(data/exceptions.json): for a question no kind recognises, the reason whose pattern matches
it (a quantity no tool returns, a reading the question leaves open, a recorded answer that is
no value, a shape of its own); for a recognised one whose recorded answer the built sandbox
does not return, the named reason its answer's shape, its subgoals or its kind give.
Reasons are data keyed by the question's shape, never by a task's id."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any

from geopy.distance import ELLIPSOIDS

from coevo.envs.weather.pins import is_number
from coevo.envs.weather.recognise import CITY
from coevo.envs.weather.world import DATA

_DATA: dict[str, Any] = json.loads((DATA / "exceptions.json").read_text(encoding="utf-8"))
#: (reason, patterns) for questions no kind recognises, first match wins.
UNRECOGNISED: list[tuple[str, list[re.Pattern[str]]]] = [
    (row["reason"], [re.compile(p.replace("{city}", CITY)) for p in row["patterns"]]) for row in _DATA["unrecognised"]
]
#: A recognised question's reason, by name.
UNHELD: dict[str, str] = _DATA["unheld"]
#: What a question of no known kind and no listed shape is told.
UNKNOWN = "the loader does not recognise the question"
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def unrecognised(goal: str) -> str:
    """The listed reason for a question no kind recognises (UNKNOWN where none matches)."""
    for reason, patterns in UNRECOGNISED:
        if any(p.search(goal) for p in patterns):
            return f"not recognised: {reason}"
    return UNKNOWN


def geodesic_can_return(km: float) -> bool:
    """Whether some float times the WGS-84 minor axis is `km`: geopy's geodesic (geographiclib's
    inverse problem) ends by multiplying the arc length by b = a(1 - f), so its kilometres lie on
    that lattice, and a value off it (a hand-rounded 507.978) is never returned at any
    coordinates."""
    a, _, f = ELLIPSOIDS["WGS-84"]
    b = a * (1 - f)
    low = high = km / b
    near = [low]
    for _ in range(4):  # the product's rounding: a few floats either side of the quotient
        low, high = math.nextafter(low, -math.inf), math.nextafter(high, math.inf)
        near += [low, high]
    return any(b * x == km for x in near)


def _no_value(recorded: Any, goal: str) -> bool:
    """Text that is neither a word the question offers nor a date: "Error", "N/A", a sentence."""
    return isinstance(recorded, str) and f"'{recorded}'" not in goal and not _DATE.fullmatch(recorded)


def unheld(kind: str, goal: str, recorded: Any, subgoals: Sequence[Any], reached: Any) -> str:
    """Why the tools' answer on the built sandbox (`reached`) is not the file's (`recorded`,
    for the question `goal` of `kind`): subgoals that
    disagree with each other, a recorded answer that is no value, a distance geopy can never
    return or a trip that closes a cycle, else another task's days."""
    if any(g != recorded for g in subgoals):
        name = "subgoals_differ"
    elif _no_value(recorded, goal):
        name = "not_a_value"
    elif kind == "distance_to" and is_number(recorded) and not geodesic_can_return(float(recorded)):
        name = "distance_geopy_never_returns"
    elif kind == "distance_to":
        name = "distance_cycle"
    else:
        name = "pinned_by_another"
    return f"recognised as {kind}, but {UNHELD[name]}"
