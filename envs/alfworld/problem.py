"""PDDL problems of the ALFRED domain: read one into a `Scene`, write a `Scene` as one.

Reading accepts ALFWorld's own files (every predicate of `alfred.pddl` that can appear in an
initial state) and refuses what the engine would not reproduce (a second agent, a receptacle
at two locations, an unknown predicate). Writing produces the same layout ALFWorld's
`initial_state.pddl` files use, so the real engine runs our generated games unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

from coevo.envs.alfworld.scene import OBJECT_PROPERTIES, OBJECT_STATES, ObjectSpec, ReceptacleSpec, Scene
from coevo.envs.alfworld.scoring import Goal, goal_pddl, parse_goal
from coevo.envs.alfworld.sexpr import parse_sexpr

_PROPERTY = {p.lower(): p for p in OBJECT_PROPERTIES}
_STATE = {s.lower(): s for s in OBJECT_STATES}
#: Predicates that may appear in an initial state without mattering to play or text.
_IGNORED = {
    "checked",
    "examined",
    "full",
    "isreceptacleobjectfull",
    "wasinreceptacle",
    "moveable",
    "receptacleobjecttype",
    "holdsanyreceptacleobject",
    "=",
}


class UnsupportedProblem(ValueError):
    """A PDDL problem outside what ALFWorld's games use."""


def _type_name(lower: str, type_names: Mapping[str, str]) -> str:
    base = lower[:-4] if lower.endswith("type") else lower
    return type_names.get(base, base)


def _declarations(objects: list) -> dict[str, str]:
    """`a b - object c - location` -> {a: object, b: object, c: location}."""
    kinds: dict[str, str] = {}
    pending: list[str] = []
    it = iter(objects)
    for token in it:
        if token == "-":
            kind = next(it)
            for name in pending:
                kinds[name] = kind
            pending = []
        else:
            pending.append(token)
    for name in pending:
        kinds[name] = "object"
    return kinds


def read_problem(text: str, task: str, type_names: Mapping[str, str]) -> Scene:
    """Parse a problem; `type_names` maps lowercase ALFRED classes to their spelling."""
    (define,) = parse_sexpr(text) if text.strip() else [None]
    if not isinstance(define, list) or not define or define[0] != "define":
        raise UnsupportedProblem("not a PDDL (define (problem ...)) document")
    sections = {part[0]: part[1:] for part in define[1:] if isinstance(part, list) and part}
    name = sections.get("problem", ["alfworld"])[0]
    kinds = _declarations(sections.get(":objects", []))
    if ":init" not in sections or ":goal" not in sections:
        raise UnsupportedProblem("problem lacks :init or :goal")

    receptacles: dict[str, ReceptacleSpec] = {}
    objects: dict[str, ObjectSpec] = {}
    can_contain: set[tuple[str, str]] = set()
    in_rec_obj: list[tuple[str, str]] = []
    held: list[str] = []
    agents: dict[str, str] = {}
    other: set[str] = set()

    def rec(rid: str) -> ReceptacleSpec:
        return receptacles.setdefault(rid, ReceptacleSpec(None, None))

    def obj(oid: str) -> ObjectSpec:
        return objects.setdefault(oid, ObjectSpec(None))

    for fact in sections[":init"]:
        if not isinstance(fact, list) or not fact:
            raise UnsupportedProblem(f"malformed fact {fact!r}")
        pred, args = fact[0], fact[1:]
        if pred in _IGNORED or (pred == "=" and args):
            continue
        if pred == "receptacletype":
            rec(args[0]).type = _type_name(args[1], type_names)
        elif pred == "objecttype":
            obj(args[0]).type = _type_name(args[1], type_names)
        elif pred == "cancontain":
            can_contain.add((_type_name(args[0], type_names), _type_name(args[1], type_names)))
        elif pred in _PROPERTY:
            obj(args[0]).properties.add(_PROPERTY[pred])
        elif pred in _STATE:
            obj(args[0]).states.add(_STATE[pred])
        elif pred == "openable":
            rec(args[0]).openable = True
        elif pred == "opened":
            rec(args[0]).opened = True
        elif pred == "atlocation":
            if agents and args[0] not in agents:
                raise UnsupportedProblem("more than one agent")
            agents[args[0]] = args[1]
        elif pred == "receptacleatlocation":
            spec = rec(args[0])
            if spec.location not in (None, args[1]):
                raise UnsupportedProblem(f"receptacle {args[0]} is at two locations")
            spec.location = args[1]
        elif pred == "objectatlocation":
            obj(args[0]).locations.append(args[1])
        elif pred == "inreceptacle":
            obj(args[0]).receptacles.append(args[1])
            rec(args[1])
        elif pred == "inreceptacleobject":
            in_rec_obj.append((args[0], args[1]))
            obj(args[0])
            obj(args[1])
        elif pred == "holds":
            held.append(args[1])
            obj(args[1])
        elif pred == "holdsany":
            other.add(args[0])
        else:
            raise UnsupportedProblem(f"unsupported predicate {pred!r} in :init")
    if len(agents) != 1:
        raise UnsupportedProblem("the problem places no agent")
    for rid in receptacles:
        if kinds.get(rid, "receptacle") != "receptacle":
            raise UnsupportedProblem(f"{rid} is used as a receptacle but declared {kinds[rid]}")
    for oid in objects:
        if kinds.get(oid, "object") != "object":
            raise UnsupportedProblem(f"{oid} is used as an object but declared {kinds[oid]}")
    goal = parse_goal(sections[":goal"][0], type_names)
    return Scene(
        receptacles=receptacles,
        objects=objects,
        agent_location=next(iter(agents.values())),
        can_contain=frozenset(can_contain),
        goal=goal,
        task=task,
        name=name,
        in_receptacle_object=in_rec_obj,
        held=held,
        other_ids=sorted(other - set(agents)),
    )


def write_problem(scene: Scene) -> str:
    """The scene as a PDDL problem of the ALFRED domain, laid out like ALFWorld's files."""
    otypes = sorted(
        {o.type for o in scene.objects.values() if o.type}
        | {t for _, t in scene.can_contain}
        | _goal_types(scene.goal, "obj")
    )
    rtypes = sorted(
        {r.type for r in scene.receptacles.values() if r.type}
        | {t for t, _ in scene.can_contain}
        | _goal_types(scene.goal, "rec")
    )
    lines = [f"(define (problem {scene.name})", "(:domain alfred)", "(:objects", "agent1 - agent"]
    lines += [f"{t}Type - otype" for t in otypes]
    lines += [f"{t}Type - rtype" for t in rtypes]
    lines += [f"{oid} - object" for oid in sorted(scene.objects)]
    lines += [f"{rid} - receptacle" for rid in sorted(scene.receptacles)]
    lines += [f"{loc} - location" for loc in sorted(scene.locations())]
    lines += [")", "(:init", f"(atLocation agent1 {scene.agent_location})"]
    for rid, r in sorted(scene.receptacles.items()):
        if r.type:
            lines.append(f"(receptacleType {rid} {r.type}Type)")
        if r.location:
            lines.append(f"(receptacleAtLocation {rid} {r.location})")
        if r.openable:
            lines.append(f"(openable {rid})")
        if r.opened:
            lines.append(f"(opened {rid})")
    for rtype, otype in sorted(scene.can_contain):
        lines.append(f"(canContain {rtype}Type {otype}Type)")
    for oid, o in sorted(scene.objects.items()):
        if o.type:
            lines.append(f"(objectType {oid} {o.type}Type)")
        lines += [f"({p} {oid})" for p in OBJECT_PROPERTIES if p in o.properties]
        lines += [f"({s} {oid})" for s in OBJECT_STATES if s in o.states]
        lines += [f"(objectAtLocation {oid} {loc})" for loc in o.locations]
        lines += [f"(inReceptacle {oid} {rid})" for rid in o.receptacles]
    lines += [f"(inReceptacleObject {a} {b})" for a, b in scene.in_receptacle_object]
    lines += [f"(holds agent1 {oid})" for oid in scene.held]
    if scene.held:
        lines.append("(holdsAny agent1)")
    lines.append(")")
    lines.append(goal_pddl(scene.goal))
    lines.append(")")
    return "\n".join(lines) + "\n"


def _goal_types(goal: Goal, kind: str) -> set[str]:
    if kind == "obj":
        return {t for t in (goal.obj_type, goal.toggle_type) if t}
    return {goal.recep_type} if goal.recep_type else set()
