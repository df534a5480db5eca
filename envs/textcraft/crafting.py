"""The crafting tree: which items exist, which are item types (tags), and which recipes make what.

The facts come from AgentGym's TextCraft server, which builds them from Minecraft's recipe files
(shaped and shapeless crafting recipes; recipes that only unpack a block dropped, recipes that
would close a cycle dropped, tags that nothing can make turned into plain items).
data/crafting_tree.json holds the tree as that code built it, so that this module only answers
questions about it (scripts/fidelity/record_textcraft.py writes the file).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "crafting_tree.json"
PREFIX = "minecraft:"


def display_name(name: str) -> str:
    """How the game writes an item or tag: "minecraft:oak_planks" -> "oak planks"."""
    return name.replace(PREFIX, "").replace("_", " ")


@dataclass(frozen=True)
class Item:
    """An item (`item_id`) or an item type (`tag` only, e.g. any planks)."""

    tag: str | None = None
    item_id: str | None = None

    @property
    def name(self) -> str:
        return self.item_id or self.tag or ""


@dataclass(frozen=True)
class Stack:
    """A count of an item, as recipes and crafting commands name them."""

    item: Item
    count: int

    def original_repr(self) -> str:
        """The Python repr the original server's error text shows for its `ItemTagWithCount`."""
        return (
            f"ItemTagWithCount(item_tag=ItemTag(tag={self.item.tag!r}, item_id={self.item.item_id!r}),"
            f" count={self.count!r})"
        )


@dataclass(frozen=True)
class Recipe:
    inputs: tuple[Stack, ...]
    output: Stack

    def command(self) -> str:
        """The recipe as the task's crafting commands list it."""
        used = ", ".join(f"{s.count} {display_name(s.item.name)}" for s in self.inputs)
        return f"craft {self.output.count} {display_name(self.output.item.name)} using {used}"


def _stack(entry: list[Any]) -> Stack:
    tag, item_id, count = entry
    return Stack(Item(tag, item_id), int(count))


class CraftingTree:
    """Read-only crafting facts, shared by every session."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.recipes: dict[str, list[Recipe]] = {
            item: [Recipe(tuple(_stack(i) for i in r["inputs"]), _stack(r["output"])) for r in recipes]
            for item, recipes in data["itemid_recipes"].items()
        }
        self.tags_with_recipes: frozenset[str] = frozenset(data["tag_recipes"])
        self.tags: frozenset[str] = frozenset(data["tag_set"])
        self.items: frozenset[str] = frozenset(data["itemid_set"])
        self.tag_of: dict[str, str] = dict(data["item_id_to_tag"])

    @classmethod
    def load(cls, path: Path = DATA) -> CraftingTree:
        return cls(json.loads(path.read_text(encoding="utf-8")))

    def is_craftable(self, name: str) -> bool:
        return name in self.recipes or name in self.tags_with_recipes

    def is_tag(self, name: str | None) -> bool:
        return name in self.tags

    def is_valid_item(self, name: str | None) -> bool:
        return name in self.items

    def parse_item(self, text: str) -> Item:
        """The item a command names ("dark oak planks"): a tag when the name is one."""
        name = PREFIX + text.replace(" ", "_")
        return Item(tag=name) if self.is_tag(name) else Item(item_id=name)

    def members(self, tag: str) -> list[str]:
        """The items of a tag, in the tree's order."""
        return [item for item, t in self.tag_of.items() if t == tag]

    def matches(self, wanted: Item, given: Item) -> bool:
        """Whether a given ingredient fills a recipe's slot: the same item, or an item of its tag."""
        if wanted.item_id is not None:
            return given.item_id == wanted.item_id
        if wanted.tag is not None:
            return given.tag == wanted.tag or (
                given.item_id is not None and self.tag_of.get(given.item_id) == wanted.tag
            )
        return False

    def craft(self, output: Item, inputs: list[Stack]) -> Stack | None:
        """What crafting `output` from exactly `inputs` yields: the first recipe of the item whose
        slots the inputs fill one to one with equal counts; None when none does."""
        if output.item_id is None or output.item_id not in self.recipes:
            return None
        for recipe in self.recipes[output.item_id]:
            left = list(inputs)
            for slot in recipe.inputs:
                found = next((i for i, s in enumerate(left) if self.matches(slot.item, s.item)), None)
                if found is None or left[found].count != slot.count:
                    break
                del left[found]
            else:
                if not left:
                    return recipe.output
        return None
