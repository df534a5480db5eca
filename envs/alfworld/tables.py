"""ALFRED's facts (fit rules, affordances, goal phrasings, floor plans), loaded once per process.

The data file is produced by `build_tables.py` from the alfworld wheel; see there for sources.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).with_name("data") / "alfred.json"


@dataclass(frozen=True, eq=False)
class FloorPlan:
    name: str
    number: int
    room: str
    #: ALFRED receptacle id -> interaction pose (x, z, rotation, camera horizon).
    receptacles: dict[str, tuple[float, float, float, float]]
    #: ALFRED classes present in the scene.
    objects: frozenset[str]


@dataclass(frozen=True, eq=False)
class Tables:
    classes: tuple[str, ...]
    #: Receptacle class -> object classes it can contain.
    can_contain: dict[str, frozenset[str]]
    cleanable: frozenset[str]
    heatable: frozenset[str]
    coolable: frozenset[str]
    sliceable: frozenset[str]
    toggleable: frozenset[str]
    receptacle_objects: frozenset[str]
    openable: frozenset[str]
    goal_rooms: dict[str, tuple[str, ...]]
    goal_templates: dict[str, list[str]]
    floorplans: dict[str, FloorPlan]

    @property
    def type_names(self) -> dict[str, str]:
        """Lowercase class -> ALFRED spelling, for reading PDDL (which folds case)."""
        return {c.lower(): c for c in self.classes}

    @property
    def pickupable(self) -> frozenset[str]:
        """Objects that fit somewhere: the ones a generated scene places and players carry."""
        return frozenset().union(*self.can_contain.values())

    def fit_pairs(self) -> frozenset[tuple[str, str]]:
        return frozenset((r, o) for r, objs in self.can_contain.items() for o in objs)


def _room(number: int, scene_types: dict[str, list[int]]) -> str:
    for room, (low, high) in scene_types.items():
        if low <= number <= high:
            return room
    raise ValueError(f"floor plan {number} is in no room type")


@lru_cache(maxsize=1)
def tables() -> Tables:
    raw = json.loads(DATA.read_text())
    floorplans = {}
    for name, plan in raw["floorplans"].items():
        number = int(name.removeprefix("FloorPlan"))
        floorplans[name] = FloorPlan(
            name=name,
            number=number,
            room=_room(number, raw["scene_types"]),
            receptacles={rid: tuple(pose) for rid, pose in plan["receptacles"].items()},
            objects=frozenset(plan["objects"]),
        )
    return Tables(
        classes=tuple(raw["classes"]),
        can_contain={r: frozenset(objs) for r, objs in raw["can_contain"].items()},
        cleanable=frozenset(raw["cleanable"]),
        heatable=frozenset(raw["heatable"]),
        coolable=frozenset(raw["coolable"]),
        sliceable=frozenset(raw["sliceable"]),
        toggleable=frozenset(raw["toggleable"]),
        receptacle_objects=frozenset(raw["receptacle_objects"]),
        openable=frozenset(raw["openable"]),
        goal_rooms={t: tuple(rooms) for t, rooms in raw["goal_rooms"].items()},
        goal_templates={t: list(v) for t, v in raw["goal_templates"].items()},
        floorplans=floorplans,
    )
