"""Confidence intervals for evaluation results: a success rate on n tasks (Wilson), and the
difference between two policies on the same tasks (paired bootstrap, exact McNemar test).

A training claim is only as good as its interval: at n = 100 a measured 30% could be 22-40%,
so every held-out row carries one (docs/agentevol.md, "Held-out evaluation").
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

# The Wilson interval lives in the core, so pages that read stored results (coevo.ui) share it.
from coevo.intervals import Z95, wilson_interval  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class PairedComparison:
    """`after` against `before` on the same tasks."""

    n: int
    difference: float
    ci95_low: float
    ci95_high: float
    #: Tasks only `after` solved, and only `before` solved (McNemar's discordant pairs).
    only_after: int
    only_before: int
    mcnemar_p: float


def mcnemar_exact(only_after: int, only_before: int) -> float:
    """Two-sided exact McNemar p-value: under no difference, each discordant pair is a fair coin."""
    discordant = only_after + only_before
    if discordant == 0:
        return 1.0
    k = min(only_after, only_before)
    tail = sum(math.comb(discordant, i) for i in range(k + 1)) / 2**discordant
    return min(1.0, 2 * tail)


def paired_comparison(
    before: Sequence[float], after: Sequence[float], *, resamples: int = 10_000, seed: int = 0
) -> PairedComparison:
    """Mean difference after - before over the same tasks, with a percentile bootstrap interval
    that resamples tasks (keeping each task's pair together), and McNemar's exact test on the
    successes (values >= 0.5 count as success)."""
    if len(before) != len(after) or not before:
        raise ValueError("before and after need the same, non-zero number of tasks")
    n = len(before)
    differences = [a - b for a, b in zip(after, before)]
    rng = random.Random(seed)
    means = sorted(sum(differences[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    low, high = means[int(0.025 * resamples)], means[min(resamples - 1, int(0.975 * resamples))]
    only_after = sum(a >= 0.5 > b for a, b in zip(after, before))
    only_before = sum(b >= 0.5 > a for a, b in zip(after, before))
    return PairedComparison(
        n=n, difference=sum(differences) / n, ci95_low=low, ci95_high=high, only_after=only_after,
        only_before=only_before, mcnemar_p=mcnemar_exact(only_after, only_before),
    )  # fmt: skip
