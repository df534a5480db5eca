"""One comparison measured in several runs that differ only in their seed, pooled.

A run's paired comparison (stats.paired_comparison) resamples the run's held-out tasks: its
interval says how far the difference could move on other tasks, given the two trained models.
A second seed gives other trained models (another warm-up draw, other batches) and, where the
task lists are drawn by seed, other tasks. Concatenating the seeds' tasks and resampling them
would treat that seed-to-seed spread as if it were none, so the pooled interval here is a
two-level (cluster) bootstrap: resample the seeds with replacement, then each drawn seed's tasks
with replacement, and take the task-weighted mean difference. With a handful of seeds the
seed level has few distinct draws (3 seeds: 10 multisets), so the interval is wide, as it
should be: it says how little three runs can tell apart.

The p-value is the stratified exact McNemar test: each seed's discordant tasks (solved by one
model only) are a fair coin under "no difference within any seed", so their sum over seeds is
one binomial. It tests the models that were trained, not the spread between seeds; read it
beside the interval, never instead of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from coevo.client.stats import PairedComparison, mcnemar_exact


@dataclass(frozen=True)
class PooledComparison:
    """`after` against `before` in every seed, and pooled over the seeds."""

    #: Each seed's own paired comparison (its tasks resampled; seed_comparison), in the order given.
    per_seed: tuple[PairedComparison, ...]
    #: Tasks over every seed.
    n: int
    #: Task-weighted mean difference after - before over every seed's tasks.
    difference: float
    #: Two-level bootstrap interval: seeds, then tasks within each drawn seed.
    ci95_low: float
    ci95_high: float
    #: The interval of the seeds' tasks concatenated and resampled as one run's: what ignoring
    #: the seeds would claim (narrower whenever the seeds disagree).
    naive_ci95_low: float
    naive_ci95_high: float
    only_after: int
    only_before: int
    #: Stratified exact McNemar p-value (discordant pairs summed over seeds).
    mcnemar_p: float


def cluster_bootstrap(
    differences: Sequence[Sequence[float]], *, resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """95% percentile interval of the task-weighted mean of `differences` (one sequence of
    per-task differences per seed): each resample draws as many seeds as given, with
    replacement, and then each drawn seed's tasks with replacement."""
    groups = [np.asarray(d, dtype=float) for d in differences]
    if not groups or any(g.size == 0 for g in groups):
        raise ValueError("every seed needs at least one task")
    rng = np.random.default_rng(seed)
    sizes = np.array([g.size for g in groups])
    chosen = rng.integers(0, len(groups), size=(resamples, len(groups)))
    totals = np.zeros(resamples)
    for s, group in enumerate(groups):
        # every (resample, slot) that drew seed s gets its own resample of s's tasks
        where = np.nonzero(chosen == s)
        draws = rng.integers(0, group.size, size=(where[0].size, group.size))
        np.add.at(totals, where[0], group[draws].sum(axis=1))
    means = np.sort(totals / sizes[chosen].sum(axis=1))
    return float(means[int(0.025 * resamples)]), float(means[min(resamples - 1, int(0.975 * resamples))])


def seed_comparison(
    before: Sequence[float], after: Sequence[float], *, resamples: int = 10_000, seed: int = 0
) -> PairedComparison:
    """One seed's paired comparison, as stats.paired_comparison makes it (tasks resampled, exact
    McNemar), drawn with numpy: a cluster bootstrap of one seed is the paired task bootstrap, and
    this runs in milliseconds where the pure-Python one takes seconds per comparison. The
    interval may differ from the run's own report by resampling noise (another RNG)."""
    if len(before) != len(after) or not before:
        raise ValueError("before and after need the same, non-zero number of tasks")
    differences = [a - b for b, a in zip(before, after)]
    low, high = cluster_bootstrap([differences], resamples=resamples, seed=seed)
    only_after = sum(a >= 0.5 > b for b, a in zip(before, after))
    only_before = sum(b >= 0.5 > a for b, a in zip(before, after))
    return PairedComparison(
        n=len(before), difference=sum(differences) / len(before), ci95_low=low, ci95_high=high,
        only_after=only_after, only_before=only_before, mcnemar_p=mcnemar_exact(only_after, only_before),
    )  # fmt: skip


def pooled_comparison(
    pairs: Sequence[tuple[Sequence[float], Sequence[float]]], *, resamples: int = 10_000, seed: int = 0
) -> PooledComparison:
    """Pool (before, after) per-task outcomes of several seeds; each pair is one seed's two
    models on that seed's tasks, in the same task order."""
    if not pairs:
        raise ValueError("no seeds to pool")
    per_seed = tuple(seed_comparison(before, after, resamples=resamples, seed=seed) for before, after in pairs)
    differences = [[a - b for b, a in zip(before, after)] for before, after in pairs]
    n = sum(len(d) for d in differences)
    low, high = cluster_bootstrap(differences, resamples=resamples, seed=seed)
    naive_low, naive_high = cluster_bootstrap(
        [[d for group in differences for d in group]], resamples=resamples, seed=seed
    )
    only_after = sum(c.only_after for c in per_seed)
    only_before = sum(c.only_before for c in per_seed)
    return PooledComparison(
        per_seed=per_seed, n=n, difference=sum(map(sum, differences)) / n, ci95_low=low, ci95_high=high,
        naive_ci95_low=naive_low, naive_ci95_high=naive_high, only_after=only_after, only_before=only_before,
        mcnemar_p=mcnemar_exact(only_after, only_before),
    )  # fmt: skip
