"""What a procedural task family is, and the registry of families by name.

A family turns a knob setting plus a seeded RNG into one task. The knobs are the axes the
parametric environment policy learns a distribution over, so each knob is a small ordered
set of values (easy to hard where the axis has a direction).
"""

from __future__ import annotations

import hashlib
import importlib
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from coevo.simulator.task_record import SimTask


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

    def generate(self, knobs: Mapping[str, Any], rng: random.Random) -> SimTask:
        """One training task for this knob setting; the same knobs and RNG state give the same
        task. Never a held-out combination (see `combination`): draws again until it is not."""
        return self._draw(knobs, rng, heldout=False)

    def generate_heldout(self, knobs: Mapping[str, Any], rng: random.Random) -> SimTask:
        """One task of a held-out combination for this knob setting (the simulator's "heldout"
        split); NoCombination where the family holds none out or the setting has none."""
        return self._draw(knobs, rng, heldout=True)

    @abstractmethod
    def _generate(self, knobs: Mapping[str, Any], rng: random.Random) -> SimTask:
        """One task for this knob setting, held out or not."""

    def combination(self, task: SimTask) -> str | None:
        """What a task is made of, beyond its knobs (for function calling: the target tool, the
        request's template and its arguments). A fixed share of combinations, chosen by hash, is
        held out: training never generates them, the "heldout" split only them. None: the family
        holds nothing out."""
        return None

    def _draw(self, knobs: Mapping[str, Any], rng: random.Random, *, heldout: bool) -> SimTask:
        for _ in range(MAX_DRAWS):
            task = self._generate(knobs, rng)
            key = self.combination(task)
            if key is None:
                if heldout:
                    raise NoCombination(f"{self.name} holds no combination out")
                return task
            if is_heldout(key) == heldout:
                return task
        kind = "held-out" if heldout else "training"
        raise NoCombination(f"{self.name}: no {kind} combination at {dict(knobs)} in {MAX_DRAWS} draws")

    def check_knobs(self, knobs: Mapping[str, Any]) -> None:
        for knob, values in self.knobs.items():
            if knobs.get(knob) not in values:
                raise ValueError(f"{self.name}: knob {knob}={knobs.get(knob)!r} not in {values}")
        extra = set(knobs) - set(self.knobs)
        if extra:
            raise ValueError(f"{self.name}: unknown knobs {sorted(extra)}")


#: One combination in HELDOUT_SHARE is held out of training (by a stable hash of its key).
HELDOUT_SHARE = 5
#: Draws of a task before a knob setting is declared to have no combination of the kind wanted.
MAX_DRAWS = 200


class NoCombination(ValueError):
    """No task of the wanted kind (training or held-out) at a knob setting."""


def is_heldout(combination: str) -> bool:
    """Whether a combination belongs to the held-out share: a hash, so the same on every
    machine and in every process, and independent of seeds and of the environment policy."""
    digest = hashlib.sha256(f"heldout:{combination}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % HELDOUT_SHARE == 0


#: family name -> "module:Class"; imported on first use.
FAMILIES: dict[str, str] = {
    "function_calling": "coevo.simulator.families.function_calling:FunctionCallingFamily",
    "arithmetic": "coevo.simulator.families.arithmetic:ArithmeticFamily",
    "alfworld_step": "coevo.simulator.families.alfworld_step:AlfworldStepFamily",
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
