"""AgentEvol's difficulty-aware exploration: explore the instructions whose estimated success
for the current policy lies in a band around a target (issue #45), instead of uniformly.

Exploration learns most from instructions the policy sometimes solves: those it always solves
add little, those it never solves add no successful trajectory. The env servers count, per task
and policy tag, the episodes they judged (coevo.client.difficulty reads them); each iteration's
explorer tags its episodes with its version, so later iterations know how it fared.

The rule (docs/agentevol.md, "Exploring in a difficulty band"):
- estimates come from the freshest policy version that has played the exploration split at
  least `min_episodes` judged times per task: the explorer itself, else its predecessors;
- the in-band instructions of the exploration pool are taken nearest the band's centre first
  (ties: split order), at most explore_tasks of them;
- too few in band (none of the versions has stats yet, as in the first iteration, or the band
  holds fewer than explore_tasks): the rest is filled with the uniform picks, and the stage's
  row counts both (`explore_in_band`, `explore_uniform_fill`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class ExploreBand:
    """The band [low, high] of estimated success rates an instruction must lie in."""

    low: float
    high: float

    @classmethod
    def parse(cls, text: str) -> ExploreBand:
        """`LOW,HIGH` (e.g. 0.3,0.7) or `ALPHA/HALF_WIDTH` (e.g. 0.5/0.2: GenEnv's alpha and k_min)."""
        try:
            if "/" in text:
                alpha, width = (float(part) for part in text.split("/"))
                if not (0 <= alpha <= 1 and width >= 0):  # also refuses nan
                    raise ValueError
                low, high = max(0.0, alpha - width), min(1.0, alpha + width)  # may reach past the ends
            else:
                low, high = (float(part) for part in text.split(","))
        except ValueError:
            raise ValueError(
                f"explore_band wants LOW,HIGH (e.g. 0.3,0.7) or ALPHA/HALF_WIDTH (e.g. 0.5/0.2) in [0, 1], got {text!r}"
            ) from None
        if not (math.isfinite(low) and math.isfinite(high) and 0 <= low <= high <= 1):
            raise ValueError(f"explore_band needs 0 <= LOW <= HIGH <= 1, got {text!r}")
        return cls(low, high)

    @property
    def centre(self) -> float:
        return (self.low + self.high) / 2

    def __str__(self) -> str:
        return f"[{self.low:g}, {self.high:g}]"
