"""What every environment policy gives the simulator: proposals, a version, hot-loading."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from coevo.simulator.task_record import SimTask


@dataclass
class Proposal:
    """One generation: the context it was conditioned on, the raw output, and the parsed task
    (None with an error when the output did not parse)."""

    context: dict[str, Any]
    output: str
    task: SimTask | None
    error: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class EnvPolicy(Protocol):
    #: "parametric" | "llm"
    kind: str

    @property
    def version(self) -> str:
        """Changes whenever the weights change (recorded with every generation)."""

    def propose(self, count: int, seed: int, family: str | None = None) -> list[Proposal]:
        """`count` generations, deterministic given `seed` and the current weights."""

    def load(self, path: str) -> None:
        """Replace the weights with those saved at `path` (hot-load)."""

    def describe(self) -> dict[str, Any]:
        """A JSON summary for operators (e.g. the knob distribution)."""
