"""The recipe planner: the next command that brings the goal closer, from the current inventory.

It knows the whole crafting tree (privileged: the agent sees only the task's commands, which
hold the goal's tree too). To have n of an item it takes it if it is a base item, else picks
the item's cheapest recipe whose ingredients can all be had (a tag's slot filled by its cheapest
member), gathers every ingredient for all the crafts needed, then crafts. It plans from the
inventory at every call, so it recovers from an agent's detours. An item it cannot plan (an
ingredient no recipe makes and `get` refuses) makes it answer None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from coevo.envs.textcraft.crafting import CraftingTree, Recipe, display_name

#: Re-gathering rounds per item before a plan is given up (ingredients that consume each other).
_ROUNDS = 8
_IMPOSSIBLE = math.inf


@dataclass
class Planner:
    """Costs (commands to make one of an item) over one tree, computed once and shared."""

    tree: CraftingTree
    _cost: dict[str, float] = field(default_factory=dict)

    def gettable(self, item: str) -> bool:
        tree = self.tree
        return not tree.is_craftable(item) and not tree.is_tag(item) and tree.is_valid_item(item)

    def cost(self, item: str, visiting: frozenset[str] = frozenset()) -> float:
        if item in self._cost:
            return self._cost[item]
        if item in visiting:
            return _IMPOSSIBLE
        if self.gettable(item):
            best = 1.0
        elif self.tree.is_tag(item):
            best = min((self.cost(m, visiting | {item}) for m in self._usable_members(item)), default=_IMPOSSIBLE)
        else:
            best = min(
                (self._recipe_cost(r, visiting | {item}) for r in self.tree.recipes.get(item, [])), default=_IMPOSSIBLE
            )
        if not visiting:  # a cost computed inside a cycle guard may be too high; keep only top-level ones
            self._cost[item] = best
        return best

    def _usable_members(self, tag: str) -> list[str]:
        # A member whose name is itself a tag would be read back as the tag by `craft`.
        return [m for m in self.tree.members(tag) if not self.tree.is_tag(m)]

    def _recipe_cost(self, recipe: Recipe, visiting: frozenset[str]) -> float:
        return 1.0 + sum(self.cost(s.item.name, visiting) for s in recipe.inputs)

    def concrete(self, name: str) -> str | None:
        """The item to use for an ingredient: itself, or a tag's cheapest member."""
        if not self.tree.is_tag(name):
            return name
        members = [(self.cost(m), m) for m in self._usable_members(name)]
        members = [(c, m) for c, m in members if c < _IMPOSSIBLE]
        return min(members)[1] if members else None

    def recipe(self, item: str) -> Recipe | None:
        options = [
            (self._recipe_cost(r, frozenset({item})), i, r) for i, r in enumerate(self.tree.recipes.get(item, []))
        ]
        options = [o for o in options if o[0] < _IMPOSSIBLE]
        return min(options, key=lambda o: (o[0], o[1]))[2] if options else None


class PlanFailed(Exception):
    """No sequence of commands the planner knows makes the item."""


def plan(planner: Planner, goal: str, inventory: Mapping[str, int]) -> list[str]:
    """Commands that end in crafting the goal once, from `inventory` (raises PlanFailed)."""
    held = dict(inventory)
    commands: list[str] = []

    def ensure(item: str, n: int, depth: int) -> None:
        if depth > 40:
            raise PlanFailed(f"the recipes for {item} nest too deep")
        for _ in range(_ROUNDS):
            have = held.get(item, 0)
            if have >= n:
                return
            if planner.gettable(item):
                commands.append(f"get {n - have} {display_name(item)}")
                held[item] = n
                return
            make(item, n - have, depth)
        raise PlanFailed(f"{item}: its ingredients keep consuming each other")

    def make(item: str, missing: int, depth: int) -> None:
        recipe = planner.recipe(item)
        if recipe is None:
            raise PlanFailed(f"no recipe for {item} has ingredients that can all be had")
        parts = [(planner.concrete(s.item.name), s.count) for s in recipe.inputs]
        if any(name is None for name, _ in parts):
            raise PlanFailed(f"an ingredient type of {item} has no member that can be had")
        crafts = math.ceil(missing / recipe.output.count)
        needed: dict[str, int] = {}
        for name, count in parts:
            assert name is not None
            needed[name] = needed.get(name, 0) + count * crafts
        for _ in range(_ROUNDS):
            for name, total in needed.items():
                ensure(name, total, depth + 1)
            if all(held.get(name, 0) >= total for name, total in needed.items()):
                break
        else:
            raise PlanFailed(f"the ingredients of {item} keep consuming each other")
        used = ", ".join(f"{count} {display_name(name or '')}" for name, count in parts)
        for _ in range(crafts):
            commands.append(f"craft {recipe.output.count} {display_name(item)} using {used}")
            for name, count in parts:
                assert name is not None
                held[name] -= count
            held[item] = held.get(item, 0) + recipe.output.count

    make(goal, 1, 0)
    return commands


def next_action(planner: Planner, goal: str, inventory: Mapping[str, int]) -> str | None:
    try:
        commands = plan(planner, goal, inventory)
    except PlanFailed:
        return None
    return commands[0] if commands else None
