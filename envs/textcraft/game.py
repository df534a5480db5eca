"""One TextCraft episode: the inventory and the three commands AgentGym's server understands.

`get N item` takes N of a base item (one no recipe makes), `craft [N] item using N a, N b`
crafts once with exactly a recipe's ingredients, `inventory` lists what is held. The texts,
including the failures ("Could not find ...", "Could not execute ...") and the order of the
checks, are the server's (`agentenv_textcraft.environment.TextCraftEnv.step`); a rejected
command is an observation, never an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from coevo.envs.textcraft.crafting import CraftingTree, Stack, display_name
from coevo.envs.textcraft.scoring import reward_for

# The server's grammar: each is tried with re.match (anchored at the start only), in this order.
_CRAFT = re.compile(r"craft (.*) using (.*)")
_GET = re.compile(r"get ([0-9]+) (.*)")
_INVENTORY = re.compile(r"inventory")
_COUNT = re.compile(r"([0-9]+) (.*)")


class ActionFailed(Exception):
    """A command the game refuses; its message is the observation."""


@dataclass(frozen=True)
class Outcome:
    observation: str
    reward: float
    done: bool
    failed: bool


@dataclass
class Game:
    tree: CraftingTree
    goal: str
    #: item id -> count, in the order items were first taken (the inventory lists them so).
    inventory: dict[str, int] = field(default_factory=dict)

    def act(self, action: str) -> Outcome:
        try:
            craft, get = _CRAFT.match(action), _GET.match(action)
            if craft:
                return self._craft(craft.group(1), craft.group(2))
            if get:
                return self._get(int(get.group(1)), get.group(2))
            if _INVENTORY.match(action):
                return Outcome(self.inventory_text(), 0.0, False, False)
            raise ActionFailed(f"Could not execute {action}")
        except ActionFailed as failed:
            return Outcome(str(failed), 0.0, False, True)

    def inventory_text(self) -> str:
        if not self.inventory:
            return "Inventory: You are not carrying anything."
        return "Inventory: " + "".join(f"[{display_name(i)}] ({n}) " for i, n in self.inventory.items())

    def _get(self, count: int, text: str) -> Outcome:
        item = self.tree.parse_item(text)
        if self.tree.is_craftable(item.name) or self.tree.is_tag(item.item_id) or item.item_id is None:
            raise ActionFailed(f"Could not find {text}")
        if not self.tree.is_valid_item(item.item_id):
            raise ActionFailed(f"Could not find {text}")
        self._add(item.item_id, count)
        reward = reward_for(item.item_id, self.goal)
        return Outcome(f"Got {count} {text}", reward, reward > 0, False)

    def _craft(self, output_text: str, inputs_text: str) -> Outcome:
        counted = _COUNT.match(output_text)
        output = Stack(self.tree.parse_item(counted.group(2)), int(counted.group(1))) if counted else None
        if output is None:
            output = Stack(self.tree.parse_item(output_text), 1)
        inputs = [self._stack(part.strip()) for part in inputs_text.split(",")]
        if not all(s.item.item_id in self.inventory and self.inventory[s.item.item_id] >= s.count for s in inputs):
            raise ActionFailed(f"Could not find enough items to craft {output.item.item_id}")
        made = self.tree.craft(output.item, inputs)
        if made is None:
            raise ActionFailed(f"Could not find a valid recipe for {output.original_repr()}")
        for s in inputs:
            assert s.item.item_id is not None  # the inventory check above holds only item ids
            self.inventory[s.item.item_id] -= s.count
            if self.inventory[s.item.item_id] == 0:
                del self.inventory[s.item.item_id]
        assert made.item.item_id is not None
        self._add(made.item.item_id, made.count)
        reward = reward_for(made.item.item_id, self.goal)
        return Outcome(f"Crafted {made.count} {made.item.item_id}", reward, reward > 0, False)

    def _stack(self, text: str) -> Stack:
        m = _COUNT.match(text)
        if not m:
            raise ActionFailed(f"Wrong item format: {text}")
        return Stack(self.tree.parse_item(m.group(2)), int(m.group(1)))

    def _add(self, item_id: str, count: int) -> None:
        self.inventory[item_id] = self.inventory.get(item_id, 0) + count
