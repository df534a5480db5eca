"""AgentBoard's progress rate for the tool envs: the share of a task's subgoals the episode has
produced so far, kept at its maximum.

Each tool call leaves a subgoal in the call record (a successful call its cleaned result, a
failed one the text "Calling <tool> with <kwargs> failed", `finish` its answer). A gold subgoal
counts when an equal one is in the record, each record entry counting once; Weather also counts
a location subgoal (a dict with latitude and longitude) matched within 50 km with its other
fields equal (`same_place`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

Matcher = Callable[[Any, Any], bool | None]


def near(coord1: tuple[float, float], coord2: tuple[float, float], threshold_km: float = 50.0) -> bool:
    """Haversine distance under the threshold (AgentBoard's `is_same_location`)."""
    lat1, lon1 = map(math.radians, coord1)
    lat2, lon2 = map(math.radians, coord2)
    a = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 6371 * 2 * math.atan2(math.sqrt(a), math.sqrt(1 - a)) < threshold_km


def _located(value: Any) -> bool:
    return isinstance(value, dict) and "latitude" in value and "longitude" in value


def same_place(gold: Any, predicted: Any) -> bool | None:
    """Weather's rule: None where it does not apply (gold is no location); else whether the
    predicted subgoal is a location within 50 km with every other field equal."""
    if not _located(gold):
        return None
    if not _located(predicted):
        return False
    rest = {k: v for k, v in gold.items() if k not in ("latitude", "longitude")}
    other = {k: v for k, v in predicted.items() if k not in ("latitude", "longitude")}
    return (
        near((gold["latitude"], gold["longitude"]), (predicted["latitude"], predicted["longitude"])) and rest == other
    )


def progress_rate(gold: Sequence[Any], predicted: Sequence[Any], matcher: Matcher | None = None) -> float:
    """Matched gold subgoals / all gold subgoals (0.0 for a task without subgoals).

    `matcher(gold, predicted)` decides a gold subgoal it applies to (True/False) and returns
    None for one it leaves to plain equality."""
    if not gold:
        return 0.0
    left = list(predicted)
    count = 0
    for subgoal in gold:
        special = matcher is not None and matcher(subgoal, None) is not None
        if special:
            assert matcher is not None
            for candidate in left:
                if matcher(subgoal, candidate):
                    left.remove(candidate)
                    count += 1
                    break
        elif subgoal in left:
            left.remove(subgoal)
            count += 1
    return count / len(gold)
