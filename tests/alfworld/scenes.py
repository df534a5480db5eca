"""Hand-made ALFWorld scenes for engine tests: small, with every rule's corner in reach."""

from __future__ import annotations

from coevo.envs.alfworld.dialects import dialect
from coevo.envs.alfworld.game import Game, compile_game
from coevo.envs.alfworld.names import alfred_id, location_id, mangle
from coevo.envs.alfworld.scene import ObjectSpec, ReceptacleSpec, Scene
from coevo.envs.alfworld.scoring import Goal


def rid(kind: str, x: float, suffix: str = "") -> str:
    return mangle(alfred_id(kind, x, 0.9, -1.0, suffix)).lower()


def loc(x: int, z: int = 0) -> str:
    return mangle(location_id(x * 0.25, z * 0.25, 90, 30)).lower()


COUNTER = rid("CounterTop", 1.0)
CABINET = rid("Cabinet", 2.0)
FRIDGE = rid("Fridge", 3.0)
MICROWAVE = rid("Microwave", 4.0)
SINK = rid("Sink", 5.0, "SinkBasin")
BURNER_A = rid("StoveBurner", 6.0)
BURNER_B = rid("StoveBurner", 6.5)
DESK = rid("Desk", 7.0)

APPLE = rid("Apple", 1.1)
APPLE_2 = rid("Apple", 1.2)
KNIFE = rid("Knife", 1.3)
MUG = rid("Mug", 2.1)
EGG = rid("Egg", 3.1)
PAN = rid("Pan", 6.1)
LAMP = rid("DeskLamp", 7.1)
BOOK = rid("Book", 7.2)

FOOD = {"pickupable", "cleanable", "heatable", "coolable", "sliceable"}


def kitchen(goal: Goal, task: str = "do the task.", start: str | None = None) -> Scene:
    recs = {
        COUNTER: ReceptacleSpec("CounterTop", loc(1)),
        CABINET: ReceptacleSpec("Cabinet", loc(2), openable=True),
        FRIDGE: ReceptacleSpec("Fridge", loc(3), openable=True),
        MICROWAVE: ReceptacleSpec("Microwave", loc(4), openable=True),
        SINK: ReceptacleSpec("SinkBasin", loc(5)),
        BURNER_A: ReceptacleSpec("StoveBurner", loc(6)),
        BURNER_B: ReceptacleSpec("StoveBurner", loc(6)),
        DESK: ReceptacleSpec("Desk", loc(7)),
    }
    objs = {
        APPLE: ObjectSpec("Apple", [loc(1)], [COUNTER], set(FOOD)),
        APPLE_2: ObjectSpec("Apple", [loc(1)], [COUNTER], set(FOOD)),
        KNIFE: ObjectSpec("Knife", [loc(1)], [COUNTER], {"pickupable", "cleanable"}),
        MUG: ObjectSpec(
            "Mug", [loc(2)], [CABINET], {"pickupable", "cleanable", "heatable", "coolable", "isReceptacleObject"}
        ),
        EGG: ObjectSpec("Egg", [loc(3)], [FRIDGE], set(FOOD), {"isCool"}),
        PAN: ObjectSpec("Pan", [loc(6)], [BURNER_A], {"pickupable", "cleanable", "coolable"}),
        LAMP: ObjectSpec("DeskLamp", [loc(7)], [DESK], {"toggleable"}),
        BOOK: ObjectSpec("Book", [loc(7)], [DESK], {"pickupable"}),
    }
    fits = {
        "CounterTop": {"Apple", "Knife", "Mug", "Egg", "Pan", "Book"},
        "Cabinet": {"Mug", "Pan", "Book"},
        "Fridge": {"Apple", "Mug", "Egg", "Pan"},
        "Microwave": {"Apple", "Mug", "Egg"},
        "SinkBasin": {"Apple", "Knife", "Mug", "Egg", "Pan"},
        "StoveBurner": {"Pan"},
        "Desk": {"Book", "Mug"},
    }
    return Scene(
        receptacles=recs,
        objects=objs,
        agent_location=start or loc(0, 9),
        can_contain=frozenset((r, o) for r, os in fits.items() for o in os),
        goal=goal,
        task=task,
    )


def compiled(goal: Goal, dialect_name: str = "2.1.2", **kw) -> Game:
    return compile_game(kitchen(goal, **kw), dialect(dialect_name))
