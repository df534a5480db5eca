"""What a procedural task family is, and the registry of families by name.

A family turns a knob setting plus a seeded RNG into one task. The knobs are the axes the
parametric environment policy learns a distribution over, so each knob is a small ordered
set of values (easy to hard where the axis has a direction).
"""

from __future__ import annotations

import importlib
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from coevo.envs.simulator.task_record import SimTask


class TaskFamily(ABC):
    name: ClassVar[str]
    #: knob -> its values. Values must be JSON scalars (they are stored with each task).
    knobs: ClassVar[dict[str, tuple[Any, ...]]]
    #: The setting of the family's canonical worked example (the first base task), which
    #: agents are shown as a one-shot demonstration: mid-range, so it shows the whole format.
    demo_knobs: ClassVar[dict[str, Any] | None] = None

    def available(self) -> bool:
        """False when an optional dependency (another env) is missing."""
        return True

    @abstractmethod
    def generate(self, knobs: Mapping[str, Any], rng: random.Random) -> SimTask:
        """One task for this knob setting; the same knobs and RNG state give the same task."""

    def check_knobs(self, knobs: Mapping[str, Any]) -> None:
        for knob, values in self.knobs.items():
            if knobs.get(knob) not in values:
                raise ValueError(f"{self.name}: knob {knob}={knobs.get(knob)!r} not in {values}")
        extra = set(knobs) - set(self.knobs)
        if extra:
            raise ValueError(f"{self.name}: unknown knobs {sorted(extra)}")


#: family name -> "module:Class"; imported on first use.
FAMILIES: dict[str, str] = {
    "function_calling": "coevo.envs.simulator.families.function_calling:FunctionCallingFamily",
    "arithmetic": "coevo.envs.simulator.families.arithmetic:ArithmeticFamily",
    "alfworld_step": "coevo.envs.simulator.families.alfworld_step:AlfworldStepFamily",
}

_LOADED: dict[str, TaskFamily] = {}


def family_names() -> list[str]:
    return list(FAMILIES)


def get_family(name: str) -> TaskFamily:
    if name not in _LOADED:
        try:
            path = FAMILIES[name]
        except KeyError:
            raise KeyError(f"unknown task family {name!r}; known: {', '.join(FAMILIES)}") from None
        module, _, attr = path.partition(":")
        _LOADED[name] = getattr(importlib.import_module(module), attr)()
    return _LOADED[name]
