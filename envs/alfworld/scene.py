"""A game at the level of a PDDL problem: ids, types, facts, goal, task sentence.

`Scene` is what the generator builds, what `pddl_problem` reads from a `game.tw-pddl` file and
what the exporter writes back; `compile_game` turns it into the compact `Game` the engine runs.
Ids are the lowercase PDDL spellings (`cabinet_bar__plus_00_dot_68_...`); types are ALFRED class
names ("Cabinet", "Apple").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coevo.envs.alfworld.scoring import Goal

#: Object properties a problem can state, by their PDDL predicate.
OBJECT_PROPERTIES = ("pickupable", "cleanable", "heatable", "coolable", "toggleable", "sliceable", "isReceptacleObject")
#: Object states a problem can start in (and actions change).
OBJECT_STATES = ("isClean", "isHot", "isCool", "isSliced", "isToggled", "isOn")


@dataclass
class ReceptacleSpec:
    type: str | None
    location: str | None
    openable: bool = False
    opened: bool = False


@dataclass
class ObjectSpec:
    type: str | None
    #: Locations the object is at (one, in all but a handful of ALFRED scenes).
    locations: list[str] = field(default_factory=list)
    #: Receptacles the object is in (ALFRED scenes sometimes put one object in two).
    receptacles: list[str] = field(default_factory=list)
    properties: set[str] = field(default_factory=set)
    states: set[str] = field(default_factory=set)


@dataclass
class Scene:
    receptacles: dict[str, ReceptacleSpec]
    objects: dict[str, ObjectSpec]
    agent_location: str
    can_contain: frozenset[tuple[str, str]]
    goal: Goal
    task: str
    name: str = "coevo"
    #: The ALFRED floor plan the layout comes from, when known.
    floorplan: int | None = None
    #: (inner object, outer object) pairs: a fork in a mug. Static in ALFWorld's domain.
    in_receptacle_object: list[tuple[str, str]] = field(default_factory=list)
    #: Objects the agent holds at the start (never in ALFWorld's own files).
    held: list[str] = field(default_factory=list)
    #: Ids that appear in the problem's facts without being receptacles, objects or locations
    #: (none in ALFWorld's files); kept so that naming counts exactly what the engine counts.
    other_ids: list[str] = field(default_factory=list)

    def locations(self) -> set[str]:
        locs = {self.agent_location}
        locs.update(r.location for r in self.receptacles.values() if r.location)
        for obj in self.objects.values():
            locs.update(obj.locations)
        return locs
