"""The reward: ALFWorld's six task types, their goal conditions, and the check that one holds.

`won` is the benchmark's checker: reward 1 and the episode's end when it holds. A goal names
types, never instances: "put a clean mug in coffeemachine" is won by any clean mug inside any
coffee machine. `Goal` keeps the task type and the types involved; `goal_pddl`
writes the goal exactly as ALFWorld's game files state it, and `parse_goal` reads such a goal
back, refusing any goal that is not one of the six shapes (rendering it again and comparing
token by token), so a game file is never half-understood.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coevo.envs.alfworld.sexpr import parse_sexpr

if TYPE_CHECKING:
    from coevo.envs.alfworld.engine import State
    from coevo.envs.alfworld.game import Game

TASK_TYPES: tuple[str, ...] = (
    "pick_and_place_simple",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_two_obj_and_place",
)

#: The state an object must be in for each task type (None: any state).
STATE_REQUIRED: dict[str, str | None] = {
    "pick_and_place_simple": None,
    "look_at_obj_in_light": None,
    "pick_clean_then_place_in_recep": "clean",
    "pick_heat_then_place_in_recep": "hot",
    "pick_cool_then_place_in_recep": "cool",
    "pick_two_obj_and_place": None,
}
_STATE_PREDICATES = {"clean": ("cleanable", "isClean"), "hot": ("heatable", "isHot"), "cool": ("coolable", "isCool")}


class UnsupportedGoal(ValueError):
    """A game file whose goal is not one of ALFWorld's six task types."""


@dataclass(frozen=True, slots=True)
class Goal:
    """What winning takes. Types are ALFRED class names ("Mug", "CoffeeMachine", "DeskLamp")."""

    task_type: str
    obj_type: str
    recep_type: str | None = None
    toggle_type: str | None = None

    def __post_init__(self) -> None:
        if self.task_type not in TASK_TYPES:
            raise ValueError(f"unknown task type {self.task_type!r}; known: {', '.join(TASK_TYPES)}")
        if (self.task_type == "look_at_obj_in_light") != (self.toggle_type is not None):
            raise ValueError("look_at_obj_in_light goals name a toggle type, the others do not")
        if (self.task_type == "look_at_obj_in_light") == (self.recep_type is not None):
            raise ValueError("placement goals name a receptacle type, look_at_obj_in_light does not")

    @property
    def state(self) -> str | None:
        return STATE_REQUIRED[self.task_type]

    def describe(self, templates: dict[str, list[str]], phrasing: int) -> str:
        """The task sentence ("put a clean mug in coffeemachine"), without the final period."""
        options = templates[self.task_type]
        return options[phrasing % len(options)].format(
            obj=self.obj_type.lower(),
            recep=(self.recep_type or "").lower(),
            toggle=(self.toggle_type or "").lower(),
        )


def goal_pddl(goal: Goal) -> str:
    """The `(:goal ...)` block as ALFWorld writes it for this goal."""
    o, r = f"{goal.obj_type}Type", f"{goal.recep_type}Type"
    if goal.task_type == "look_at_obj_in_light":
        return (
            "(:goal\n (and\n"
            "  (exists (?ot - object ?r - receptacle ?a - agent ?l - location)\n"
            f"   (and (objectType ?ot {goal.toggle_type}Type) (toggleable ?ot) (isToggled ?ot)\n"
            "        (receptacleAtLocation ?r ?l) (atLocation ?a ?l) (inReceptacle ?ot ?r)))\n"
            f"  (exists (?o - object ?a - agent) (and (objectType ?o {o}) (holds ?a ?o)))))"
        )
    if goal.task_type == "pick_two_obj_and_place":
        return (
            "(:goal\n (and\n  (exists (?r - receptacle)\n   (exists (?o1 - object)\n"
            f"    (and (objectType ?o1 {o}) (receptacleType ?r {r}) (inReceptacle ?o1 ?r)\n"
            "     (exists (?o2 - object)\n"
            f"      (and (not (= ?o1 ?o2)) (objectType ?o2 {o}) (receptacleType ?r {r})"
            " (inReceptacle ?o2 ?r))))))))"
        )
    if goal.state is None:
        body = f"(inReceptacle ?o ?r) (objectType ?o {o}) (receptacleType ?r {r})"
    else:
        able, now = _STATE_PREDICATES[goal.state]
        body = f"({able} ?o) (objectType ?o {o}) (receptacleType ?r {r}) ({now} ?o) (inReceptacle ?o ?r)"
    return f"(:goal\n (and\n  (exists (?r - receptacle)\n   (exists (?o - object)\n    (and {body})))))"


def _type_after(tokens: list, predicate: str, variable: str) -> str | None:
    """The constant in `(predicate variable XType)` anywhere in a parsed goal, without "Type"."""
    stack = [tokens]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            if len(node) == 3 and node[0] == predicate.lower() and node[1] == variable:
                const = node[2]
                return const[: -len("type")] if const.endswith("type") else const
            stack.extend(node)
    return None


def _flatten(node: object) -> list[str]:
    if isinstance(node, list):
        return ["("] + [tok for child in node for tok in _flatten(child)] + [")"]
    return [str(node)]


def parse_goal(goal_expr: list, type_names: Mapping[str, str]) -> Goal:
    """Read the condition of a parsed `(:goal ...)`; `type_names` maps lowercase types to ALFRED names."""
    text = " ".join(_flatten(goal_expr))

    def name(lower: str | None) -> str | None:
        return None if lower is None else type_names.get(lower, lower)

    try:
        if "toggleable" in text:
            goal = Goal(
                "look_at_obj_in_light",
                name(_type_after(goal_expr, "objectType", "?o")) or "",
                toggle_type=name(_type_after(goal_expr, "objectType", "?ot")),
            )
        elif "?o2" in text:
            goal = Goal(
                "pick_two_obj_and_place",
                name(_type_after(goal_expr, "objectType", "?o1")) or "",
                name(_type_after(goal_expr, "receptacleType", "?r")),
            )
        else:
            task_type = "pick_and_place_simple"
            for candidate, state in STATE_REQUIRED.items():
                if state and _STATE_PREDICATES[state][1].lower() in text.split():
                    task_type = candidate
            goal = Goal(
                task_type,
                name(_type_after(goal_expr, "objectType", "?o")) or "",
                name(_type_after(goal_expr, "receptacleType", "?r")),
            )
    except ValueError as exc:
        raise UnsupportedGoal(f"not one of ALFWorld's six goal shapes: {text[:300]}") from exc
    if not goal.obj_type or _flatten(parse_sexpr(goal_pddl(goal))[0][1]) != _flatten(goal_expr):
        raise UnsupportedGoal(f"not one of ALFWorld's six goal shapes: {text[:300]}")
    return goal


def won(game: Game, state: State) -> bool:
    """Whether the goal condition of the game's task type holds."""
    goal = game.goal
    objs = game.goal_objs
    task = goal.task_type
    if task == "look_at_obj_in_light":
        if not state.held & objs:
            return False
        lamps = game.goal_toggles & game.toggleable & state.toggled
        return any(state.contents[r] & lamps for r in game.recs_at[state.loc])
    if task == "pick_clean_then_place_in_recep":
        objs &= game.cleanable & state.clean
    elif task == "pick_heat_then_place_in_recep":
        objs &= game.heatable & state.hot
    elif task == "pick_cool_then_place_in_recep":
        objs &= game.coolable & state.cool
    if not objs:
        return False
    if task == "pick_two_obj_and_place":
        return any((state.contents[r] & objs).bit_count() >= 2 for r in game.goal_recs)
    return any(state.contents[r] & objs for r in game.goal_recs)
