"""Generated ALFWorld games: ALFRED floor plans, ALFRED's fit rules, the six task types.

`generate(knobs, seed)` returns a `Scene` (deterministic in both arguments), already proven
winnable by the expert. It is the API the GenEnv simulator drives; the knobs are:

    Knobs(
        task_type=None,        # one of scoring.TASK_TYPES; None: drawn uniformly
        room=None,             # "Kitchen" | "LivingRoom" | "Bedroom" | "Bathroom"; None: any the
                               #   task type allows (ALFRED: heat/cool in kitchens, look-at in
                               #   living rooms and bedrooms, clean in kitchens and bathrooms)
        floorplans=None,       # ALFRED floor plan numbers to draw layouts from; None: the seen
                               #   ones (tasks.SEEN_FLOORPLANS)
        max_receptacles=None,  # room size: keep at most this many receptacles (the ones the task
                               #   needs always stay); None: the whole floor plan; 2..MAX_RECEPTACLES
        distractors=None,      # number of non-goal object classes placed; None: every class the
                               #   floor plan has; 0: only the goal's objects; at most MAX_DISTRACTORS
        max_instances=3,       # instances per object class, drawn from 1..max_instances; at most
                               #   MAX_INSTANCES
        closed=1.0,            # probability that an openable receptacle starts closed (ALFRED: 1)
        hide_target=None,      # True: goal objects start inside openable receptacles; False: on
                               #   open surfaces; None: wherever they fall
        phrasing=None,         # 0 or 1: which of the task type's two sentences; None: drawn
    )

Every knob that sizes a scene has an upper bound, checked when the knobs are made (before any
generation): a task id such as `gen-1?max_instances=100000` reaches them from any client, and
took 45 s and 1 GB before the bound.

A scene is laid out from one ALFRED floor plan: its receptacles keep their ALFRED ids and
interaction poses (so they are named and numbered as in ALFWorld's games of that floor plan),
receptacle classes the plan lists without a pose (stove burners, coffee machine, ...) get
synthesized ones. Objects are the plan's object classes, placed in receptacles that can contain
them; coolable objects that start in a fridge start cold, as in ALFRED. The goal's objects never
start where the goal wants them, and the expert must win in at most `MAX_EXPERT_STEPS` steps.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache

from coevo.envs.alfworld import engine, expert, scoring
from coevo.envs.alfworld.dialects import dialect as get_dialect
from coevo.envs.alfworld.game import compile_game
from coevo.envs.alfworld.names import alfred_id, location_id, mangle
from coevo.envs.alfworld.scene import ObjectSpec, ReceptacleSpec, Scene
from coevo.envs.alfworld.scoring import TASK_TYPES, Goal
from coevo.envs.alfworld.tables import FloorPlan, Tables, tables

MAX_EXPERT_STEPS = 30
ROOMS = ("Kitchen", "LivingRoom", "Bedroom", "Bathroom")
#: Where ALFRED scenes keep the lamps and plants that are not carried but are seen. A floor lamp
#: stands beside the same furniture as a desk lamp; the look-at goal needs the lamp in a receptacle.
FIXTURE_PLACES = {
    "DeskLamp": ("Desk", "SideTable", "Dresser", "Shelf"),
    "FloorLamp": ("Desk", "SideTable", "Dresser", "Shelf"),
    "HousePlant": ("CounterTop", "DiningTable", "SideTable", "CoffeeTable", "Shelf", "Desk"),
    "Television": ("TVStand", "Dresser"),
}
#: The lamps of ALFWorld's look-at tasks (its constants' toggleable classes).
LAMPS = ("DeskLamp", "FloorLamp")
#: The appliance a state-changing task uses, which is never its target receptacle.
APPLIANCE = {
    "pick_clean_then_place_in_recep": "SinkBasin",
    "pick_heat_then_place_in_recep": "Microwave",
    "pick_cool_then_place_in_recep": "Fridge",
}
PROPERTY_OF = {"clean": "cleanable", "hot": "heatable", "cool": "coolable"}
_ATTEMPTS = 50


class GenerationError(RuntimeError):
    """No scene satisfies the knobs (say, a heat task in a bathroom)."""


class NoFloorPlan(GenerationError):
    """No allowed floor plan supports the task type at all: retrying cannot help."""


#: Upper bounds of the knobs that size a scene (the largest ALFRED floor plan has fewer
#: receptacles and object classes than these; `max_instances` multiplies every class).
MAX_RECEPTACLES = 100
MAX_DISTRACTORS = 100
MAX_INSTANCES = 10


@dataclass(frozen=True)
class Knobs:
    task_type: str | None = None
    room: str | None = None
    floorplans: tuple[int, ...] | None = None
    max_receptacles: int | None = None
    distractors: int | None = None
    max_instances: int = 3
    closed: float = 1.0
    hide_target: bool | None = None
    phrasing: int | None = None

    def __post_init__(self) -> None:
        if self.task_type is not None and self.task_type not in TASK_TYPES:
            raise ValueError(f"unknown task type {self.task_type!r}; known: {', '.join(TASK_TYPES)}")
        if self.room is not None and self.room not in ROOMS:
            raise ValueError(f"unknown room {self.room!r}; known: {', '.join(ROOMS)}")
        if self.max_receptacles is not None and not 2 <= self.max_receptacles <= MAX_RECEPTACLES:
            raise ValueError(f"max_receptacles must be between 2 and {MAX_RECEPTACLES}")
        if self.distractors is not None and not 0 <= self.distractors <= MAX_DISTRACTORS:
            raise ValueError(f"distractors must be between 0 and {MAX_DISTRACTORS}")
        if not 1 <= self.max_instances <= MAX_INSTANCES:
            raise ValueError(f"max_instances must be between 1 and {MAX_INSTANCES}")
        if not 0.0 <= self.closed <= 1.0:
            raise ValueError("closed must be a probability")
        if self.phrasing is not None and self.phrasing not in (0, 1):
            raise ValueError("phrasing must be 0 or 1")


# ------------------------------------------------------------------------------ layout


@dataclass(frozen=True)
class _Recep:
    alfred_id: str
    type: str
    pose: tuple[float, float, float, float]
    xyz: tuple[float, float, float]


def _recep_type(rid: str) -> str:
    parts = rid.split("|")
    return parts[-1] if parts[-1].endswith("Basin") else parts[0]


def _xyz(rid: str) -> tuple[float, float, float]:
    parts = rid.split("|")
    return float(parts[1]), float(parts[2]), float(parts[3])


#: Instances and shared poses of receptacle classes a floor plan lists without a pose.
_SYNTH_COUNT = {"StoveBurner": 4}


@lru_cache(maxsize=None)
def layout(plan: FloorPlan, t: Tables) -> tuple[_Recep, ...]:
    """The floor plan's receptacles, posed ones from ALFRED plus synthesized missing classes."""
    receps = [_Recep(rid, _recep_type(rid), pose, _xyz(rid)) for rid, pose in sorted(plan.receptacles.items())]
    present = {r.type for r in receps}
    xs = [r.pose[0] for r in receps] or [0.0]
    zs = [r.pose[1] for r in receps] or [0.0]
    rng = random.Random(f"layout:{plan.name}")
    for cls in sorted(plan.objects):
        if cls not in t.can_contain or cls in present or cls in t.receptacle_objects:
            continue
        if cls == "SinkBasin" and "Sink" not in plan.objects:
            continue
        count = _SYNTH_COUNT.get(cls, 1)
        x = rng.choice(range(int(min(xs) / 0.25), int(max(xs) / 0.25) + 1)) * 0.25
        z = rng.choice(range(int(min(zs) / 0.25), int(max(zs) / 0.25) + 1)) * 0.25
        rot = rng.choice((0, 90, 180, 270))
        for k in range(count):
            pose = (x + 0.25 * (k // 2), z, rot, 30 + 15 * (k // 2))
            xyz = (round(x + 0.2 * (k % 2) + 0.3, 2), 0.9, round(z + 0.2 * (k // 2) + 0.3, 2))
            suffix = "SinkBasin" if cls == "SinkBasin" else ("BathtubBasin" if cls == "BathtubBasin" else "")
            kind = {"SinkBasin": "Sink", "BathtubBasin": "Bathtub"}.get(cls, cls)
            receps.append(_Recep(alfred_id(kind, *xyz, suffix), cls, pose, xyz))
    return tuple(receps)


# ------------------------------------------------------------------------------ choices


@dataclass
class _Plan:
    floorplan: FloorPlan
    receps: list[_Recep]
    goal: Goal
    needed: set[int] = field(default_factory=set)


@lru_cache(maxsize=None)
def _candidates(plan: FloorPlan, task_type: str, t: Tables) -> tuple[Goal, ...]:
    """Every goal of this type the floor plan supports."""
    types = {r.type for r in layout(plan, t)}
    pickable = plan.objects & t.pickupable
    if task_type == "look_at_obj_in_light":
        lamps = [lamp for lamp in LAMPS if lamp in plan.objects and types & set(FIXTURE_PLACES[lamp])]
        return tuple(
            Goal(task_type, obj, toggle_type=lamp)
            for lamp in lamps
            for obj in sorted(pickable)
            if any(obj in t.can_contain[r] for r in types)
        )
    appliance = APPLIANCE.get(task_type)
    if appliance and appliance not in types:
        return ()
    state = {
        "pick_clean_then_place_in_recep": t.cleanable,
        "pick_heat_then_place_in_recep": t.heatable,
        "pick_cool_then_place_in_recep": t.coolable,
    }.get(task_type)
    goals = []
    for obj in sorted(pickable):
        if state is not None and obj not in state:
            continue
        targets = sorted(r for r in types if obj in t.can_contain[r] and r != appliance)
        for target in targets:
            sources = [r for r in types if r != target and obj in t.can_contain[r]]
            if sources:
                goals.append(Goal(task_type, obj, target))
    return tuple(goals)


def _choose(knobs: Knobs, rng: random.Random, t: Tables, allowed: tuple[int, ...]) -> _Plan:
    task_type = knobs.task_type or rng.choice(TASK_TYPES)
    rooms = [r for r in t.goal_rooms[task_type] if knobs.room in (None, r)]
    allowed_set = frozenset(allowed)
    plans = [p for p in t.floorplans.values() if p.number in allowed_set and p.room in rooms]
    rng.shuffle(plans)
    for plan in plans:
        goals = _candidates(plan, task_type, t)
        if goals:
            obj = rng.choice(sorted({g.obj_type for g in goals}))
            goal = rng.choice([g for g in goals if g.obj_type == obj])
            return _Plan(plan, list(layout(plan, t)), goal)
    raise NoFloorPlan(f"no floor plan among {len(allowed)} allowed ones fits {task_type} in {rooms}")


def _trim(p: _Plan, knobs: Knobs, rng: random.Random, t: Tables) -> list[_Recep]:
    """Room size: keep what the task needs, then a random selection up to the cap."""
    receps = p.receps
    if knobs.max_receptacles is None or len(receps) <= knobs.max_receptacles:
        return receps
    goal = p.goal
    need: list[_Recep] = []

    def keep_one(pred: Callable[[_Recep], bool]) -> None:
        if any(pred(r) for r in need):
            return
        options = [r for r in receps if pred(r)]
        if options:
            need.append(rng.choice(options))

    if goal.recep_type:
        keep_one(lambda r: r.type == goal.recep_type)
    if goal.task_type in APPLIANCE:
        keep_one(lambda r: r.type == APPLIANCE[goal.task_type])
    if goal.toggle_type:
        keep_one(lambda r: r.type in FIXTURE_PLACES[goal.toggle_type or ""])
    keep_one(lambda r: r.type != goal.recep_type and goal.obj_type in t.can_contain.get(r.type, ()))
    rest = [r for r in receps if r not in need]
    rng.shuffle(rest)
    kept = need + rest[: max(0, knobs.max_receptacles - len(need))]
    return sorted(kept, key=lambda r: r.alfred_id)


def _object_id(cls: str, host: _Recep, rng: random.Random, taken: set[str]) -> str:
    x, y, z = host.xyz
    while True:
        oid = alfred_id(cls, x + rng.uniform(-0.4, 0.4), y + rng.uniform(0.0, 0.15), z + rng.uniform(-0.4, 0.4))
        if oid not in taken:
            taken.add(oid)
            return oid


def _build(p: _Plan, knobs: Knobs, rng: random.Random, t: Tables) -> Scene:
    goal = p.goal
    receps = _trim(p, knobs, rng, t)
    locs = {r.alfred_id: mangle(location_id(*r.pose)).lower() for r in receps}
    rids = {r.alfred_id: mangle(r.alfred_id).lower() for r in receps}
    receptacles = {
        rids[r.alfred_id]: ReceptacleSpec(
            type=r.type,
            location=locs[r.alfred_id],
            openable=r.type in t.openable,
            opened=r.type in t.openable and rng.random() >= knobs.closed,
        )
        for r in receps
    }
    objects: dict[str, ObjectSpec] = {}
    taken: set[str] = set()

    def add(cls: str, hosts: list[_Recep], properties: set[str]) -> None:
        host = rng.choice(hosts)
        oid = mangle(_object_id(cls, host, rng, taken)).lower()
        spec = ObjectSpec(cls, [locs[host.alfred_id]], [rids[host.alfred_id]], set(properties))
        if "coolable" in properties and host.type == "Fridge":
            spec.states.add("isCool")
        objects[oid] = spec

    def properties(cls: str) -> set[str]:
        props = {"pickupable"}
        for name, members in (
            ("cleanable", t.cleanable),
            ("heatable", t.heatable),
            ("coolable", t.coolable),
            ("sliceable", t.sliceable),
            ("isReceptacleObject", t.receptacle_objects),
        ):
            if cls in members:
                props.add(name)
        return props

    # The goal's objects: never where the goal wants them.
    hosts = [r for r in receps if goal.obj_type in t.can_contain.get(r.type, ()) and r.type != goal.recep_type]
    if knobs.hide_target is not None:
        hidden = [r for r in hosts if (r.type in t.openable) == knobs.hide_target]
        hosts = hidden or hosts
    if not hosts:
        raise GenerationError("no receptacle can hold the goal's object")
    low = 2 if goal.task_type == "pick_two_obj_and_place" else 1
    for _ in range(rng.randint(low, max(low, knobs.max_instances + (low - 1)))):
        add(goal.obj_type, hosts, properties(goal.obj_type))

    # Distractor classes: everything else the floor plan has that fits somewhere here.
    others = sorted(
        c
        for c in p.floorplan.objects & t.pickupable
        if c != goal.obj_type and any(c in t.can_contain.get(r.type, ()) for r in receps)
    )
    rng.shuffle(others)
    if knobs.distractors is not None:
        others = others[: knobs.distractors]
    for cls in others:
        fits = [r for r in receps if cls in t.can_contain.get(r.type, ())]
        if goal.recep_type and cls == goal.obj_type:
            fits = [r for r in fits if r.type != goal.recep_type]
        for _ in range(rng.randint(1, knobs.max_instances)):
            add(cls, fits, properties(cls))

    # Seen but never carried: lamps (the look-at tasks need one), house plants, televisions.
    for cls, places in FIXTURE_PLACES.items():
        if cls not in p.floorplan.objects:
            continue
        spots = [r for r in receps if r.type in places]
        if spots:
            add(cls, spots, {"toggleable"} if cls in t.toggleable else set())

    rec_locs = set(locs.values())
    while True:
        start = mangle(
            location_id(rng.randint(-12, 12) * 0.25, rng.randint(-12, 12) * 0.25, rng.choice((0, 90, 180, 270)), 30)
        ).lower()
        if start not in rec_locs:
            break
    phrasing = knobs.phrasing if knobs.phrasing is not None else rng.randrange(2)
    used = {o.type for o in objects.values() if o.type is not None}
    rtypes = {r.type for r in receptacles.values() if r.type is not None}
    can_contain = frozenset((r, o) for r in rtypes for o in used if o in t.can_contain.get(r, ()))
    return Scene(
        receptacles=receptacles,
        objects=objects,
        agent_location=start,
        can_contain=can_contain,
        goal=goal,
        task=goal.describe(t.goal_templates, phrasing) + ".",
        name=f"coevo_{p.floorplan.name.lower()}",
        floorplan=p.floorplan.number,
    )


def generate(knobs: Knobs, seed: int, floorplans: tuple[int, ...] | None = None) -> Scene:
    """A winnable scene for `knobs`, the same for the same (knobs, seed)."""
    from coevo.envs.alfworld.tasks import SEEN_FLOORPLANS

    t = tables()
    allowed = knobs.floorplans or floorplans or SEEN_FLOORPLANS
    rng = random.Random(seed)
    check = get_dialect("2.1.2")
    last: Exception | None = None
    for _ in range(_ATTEMPTS):
        try:
            scene = _build(_choose(knobs, rng, t, allowed), knobs, rng, t)
        except NoFloorPlan:
            if knobs.task_type:
                raise
            continue
        except GenerationError as exc:
            last = exc
            continue
        game = compile_game(scene, check)
        state = engine.State(game)
        if scoring.won(game, state):
            continue
        try:
            turns = expert.plan(game, state)
        except expert.NoPlan as exc:
            last = exc
            continue
        if len(turns) <= MAX_EXPERT_STEPS:
            return replace(scene, name=f"{scene.name}_{seed}")
    raise GenerationError(f"no winnable scene for {knobs} (seed {seed}): {last}")
