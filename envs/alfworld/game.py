"""The compiled, read-only form of one game: what the engine needs and nothing more.

Receptacles, objects and locations become indices in sorted-id order, so "sorted by id" (the
order ALFWorld lists things in) is plain index order; sets of objects and receptacles become
int bitmasks. A `Game` is shared by every session playing it; per-session state lives in
`engine.State`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass

from coevo.envs.alfworld.dialects import Dialect
from coevo.envs.alfworld.names import display_names
from coevo.envs.alfworld.scene import Scene
from coevo.envs.alfworld.scoring import Goal


def mask_of(indices: Iterable[int]) -> int:
    mask = 0
    for i in indices:
        mask |= 1 << i
    return mask


@dataclass(frozen=True, slots=True)
class Initial:
    """The starting values of everything actions change."""

    loc: int
    held: int
    hold_any: bool
    contents: tuple[int, ...]
    at_loc: tuple[int, ...]
    opened: int
    clean: int
    hot: int
    cool: int
    sliced: int
    toggled: int
    on: int


@dataclass(frozen=True, slots=True)
class Game:
    name: str
    #: The task sentence as the game states it, final period included.
    task: str
    goal: Goal
    dialect: Dialect
    rec_names: tuple[str, ...]
    rec_types: tuple[str | None, ...]
    #: Location index of each receptacle, -1 when the problem gives none.
    rec_loc: tuple[int, ...]
    openable: int
    obj_names: tuple[str, ...]
    obj_types: tuple[str | None, ...]
    pickupable: int
    cleanable: int
    heatable: int
    coolable: int
    toggleable: int
    sliceable: int
    receptacle_object: int
    knives: int
    loc_names: tuple[str, ...]
    #: Receptacles at each location, in index order.
    recs_at: tuple[tuple[int, ...], ...]
    #: Per receptacle: the objects its type can contain.
    fits: tuple[int, ...]
    #: Per object: the objects inside it (a fork in a mug); static in ALFWorld.
    inner: tuple[int, ...]
    microwaves: int
    sinks: int
    fridges: int
    #: Goal helpers: objects of the goal's object / toggle type, receptacles of its type.
    goal_objs: int
    goal_toggles: int
    goal_recs: tuple[int, ...]
    initial: Initial

    @property
    def n_recs(self) -> int:
        return len(self.rec_names)

    @property
    def n_objs(self) -> int:
        return len(self.obj_names)

    def rec_index(self, name: str) -> int:
        return self.rec_names.index(name)

    def obj_index(self, name: str) -> int:
        return self.obj_names.index(name)


def compile_game(scene: Scene, dialect: Dialect) -> Game:
    """Index a scene. Player-facing names are interned: sessions of many games share them."""
    rec_ids = sorted(scene.receptacles)
    obj_ids = sorted(scene.objects)
    loc_ids = sorted(scene.locations())
    names = display_names([*rec_ids, *obj_ids, *loc_ids, *scene.other_ids])
    rec_ix = {rid: i for i, rid in enumerate(rec_ids)}
    obj_ix = {oid: i for i, oid in enumerate(obj_ids)}
    loc_ix = {lid: i for i, lid in enumerate(loc_ids)}
    recs = [scene.receptacles[r] for r in rec_ids]
    objs = [scene.objects[o] for o in obj_ids]

    rec_loc = tuple(loc_ix[r.location] if r.location else -1 for r in recs)
    recs_at: list[list[int]] = [[] for _ in loc_ids]
    for i, loc in enumerate(rec_loc):
        if loc >= 0:
            recs_at[loc].append(i)

    prop_masks: dict[str, int] = {}
    by_type: dict[str, int] = {}
    contents = [0] * len(recs)
    at_loc = [0] * len(loc_ids)
    for i, o in enumerate(objs):
        bit = 1 << i
        for name in o.properties:
            prop_masks[name] = prop_masks.get(name, 0) | bit
        for name in o.states:
            prop_masks[name] = prop_masks.get(name, 0) | bit
        if o.type is not None:
            by_type[o.type] = by_type.get(o.type, 0) | bit
        for rid in o.receptacles:
            contents[rec_ix[rid]] |= bit
        for lid in o.locations:
            at_loc[loc_ix[lid]] |= bit
    knives = by_type.get("Knife", 0) | by_type.get("ButterKnife", 0)
    rec_masks: dict[str, int] = {}
    for i, r in enumerate(recs):
        bit = 1 << i
        if r.openable:
            rec_masks["openable"] = rec_masks.get("openable", 0) | bit
        if r.opened:
            rec_masks["opened"] = rec_masks.get("opened", 0) | bit
        if r.type is not None:
            rec_masks[r.type] = rec_masks.get(r.type, 0) | bit
    holds_types: dict[str, int] = {}
    for rtype, otype in scene.can_contain:
        holds_types[rtype] = holds_types.get(rtype, 0) | by_type.get(otype, 0)
    fits = tuple(holds_types.get(r.type, 0) if r.type else 0 for r in recs)
    inner = [0] * len(objs)
    for inside, outside in scene.in_receptacle_object:
        if inside in obj_ix and outside in obj_ix:
            inner[obj_ix[outside]] |= 1 << obj_ix[inside]

    held = mask_of(obj_ix[o] for o in scene.held)
    goal = scene.goal
    initial = Initial(
        loc=loc_ix[scene.agent_location],
        held=held,
        hold_any=bool(held),
        contents=tuple(contents),
        at_loc=tuple(at_loc),
        opened=rec_masks.get("opened", 0),
        clean=prop_masks.get("isClean", 0),
        hot=prop_masks.get("isHot", 0),
        cool=prop_masks.get("isCool", 0),
        sliced=prop_masks.get("isSliced", 0),
        toggled=prop_masks.get("isToggled", 0),
        on=prop_masks.get("isOn", 0),
    )
    return Game(
        name=scene.name,
        task=sys.intern(scene.task),
        goal=goal,
        dialect=dialect,
        rec_names=tuple(sys.intern(names[r]) for r in rec_ids),
        rec_types=tuple(r.type for r in recs),
        rec_loc=rec_loc,
        openable=rec_masks.get("openable", 0),
        obj_names=tuple(sys.intern(names[o]) for o in obj_ids),
        obj_types=tuple(o.type for o in objs),
        pickupable=prop_masks.get("pickupable", 0),
        cleanable=prop_masks.get("cleanable", 0),
        heatable=prop_masks.get("heatable", 0),
        coolable=prop_masks.get("coolable", 0),
        toggleable=prop_masks.get("toggleable", 0),
        sliceable=prop_masks.get("sliceable", 0),
        receptacle_object=prop_masks.get("isReceptacleObject", 0),
        knives=knives,
        loc_names=tuple(sys.intern(names[loc]) for loc in loc_ids),
        recs_at=tuple(tuple(rs) for rs in recs_at),
        fits=fits,
        inner=tuple(inner),
        microwaves=rec_masks.get("Microwave", 0),
        sinks=rec_masks.get("SinkBasin", 0),
        fridges=rec_masks.get("Fridge", 0),
        goal_objs=by_type.get(goal.obj_type, 0),
        goal_toggles=by_type.get(goal.toggle_type, 0) if goal.toggle_type else 0,
        goal_recs=tuple(i for i, r in enumerate(recs) if r.type == goal.recep_type),
        initial=initial,
    )
