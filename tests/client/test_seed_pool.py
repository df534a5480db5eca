"""Pooling one paired comparison over seeds (coevo.client.seed_pool), on outcome lists whose
answer is known: no difference, the same gain in every seed, and one seed's gain alone."""

from __future__ import annotations

import random

import pytest

from coevo.client.seed_pool import cluster_bootstrap, pooled_comparison, seed_comparison
from coevo.client.stats import mcnemar_exact, paired_comparison


def outcomes(rng: random.Random, n: int = 200, rate: float = 0.5) -> list[float]:
    return [float(rng.random() < rate) for _ in range(n)]


def test_identical_arms_pool_to_no_difference() -> None:
    rng = random.Random(1)
    seeds = [outcomes(rng) for _ in range(3)]
    pooled = pooled_comparison([(s, list(s)) for s in seeds])
    assert (pooled.difference, pooled.ci95_low, pooled.ci95_high, pooled.mcnemar_p) == (0.0, 0.0, 0.0, 1.0)
    assert pooled.n == 600 and [c.n for c in pooled.per_seed] == [200, 200, 200]


def test_the_same_gain_in_every_seed_pools_to_it_with_an_interval_above_zero() -> None:
    rng = random.Random(2)
    pairs = []
    for _ in range(3):
        before = outcomes(rng)
        after = list(before)
        for i in [i for i, o in enumerate(before) if o == 0.0][:20]:  # 20 of 200 more solved: +0.1
            after[i] = 1.0
        pairs.append((before, after))
    pooled = pooled_comparison(pairs)
    assert [c.difference for c in pooled.per_seed] == pytest.approx([0.1, 0.1, 0.1])
    assert pooled.difference == pytest.approx(0.1)
    assert 0.0 < pooled.ci95_low < 0.1 < pooled.ci95_high < 0.2
    assert (pooled.only_after, pooled.only_before) == (60, 0)
    assert pooled.mcnemar_p == mcnemar_exact(60, 0) < 1e-15


def test_one_seeds_gain_alone_widens_the_interval_past_the_naive_one() -> None:
    """Seed 0 gains 30 points, three others nothing: the tasks concatenated claim a gain (naive
    interval above 0); resampling the seeds shows it may be one seed's luck (interval down to 0)."""
    rng = random.Random(3)
    pairs = []
    for seed in range(4):
        before = outcomes(rng, rate=0.3)
        after = list(before)
        if seed == 0:
            for i in [i for i, o in enumerate(before) if o == 0.0][:60]:
                after[i] = 1.0
        pairs.append((before, after))
    pooled = pooled_comparison(pairs)
    assert pooled.difference == pytest.approx(0.075)
    assert pooled.naive_ci95_low > 0.04  # what ignoring the seeds would claim
    assert pooled.ci95_low == 0.0  # a resample without seed 0 has no gain at all
    assert pooled.ci95_high - pooled.ci95_low > 2 * (pooled.naive_ci95_high - pooled.naive_ci95_low)
    assert [c.difference for c in pooled.per_seed] == pytest.approx([0.3, 0.0, 0.0, 0.0])


def test_opposite_seeds_cancel_and_the_test_counts_every_discordant_pair() -> None:
    first = ([0.0] * 10 + [1.0] * 90, [1.0] * 100)  # +10 tasks
    second = ([1.0] * 100, [0.0] * 10 + [1.0] * 90)  # -10 tasks
    pooled = pooled_comparison([first, second])
    assert pooled.difference == 0.0 and (pooled.only_after, pooled.only_before) == (10, 10)
    assert pooled.mcnemar_p == 1.0 and pooled.ci95_low < 0.0 < pooled.ci95_high


def test_the_bootstrap_is_seeded_and_weights_tasks() -> None:
    groups = [[1.0] * 10, [0.0] * 30]
    assert cluster_bootstrap(groups, resamples=2000, seed=5) == cluster_bootstrap(groups, resamples=2000, seed=5)
    low, high = cluster_bootstrap(groups, resamples=2000)
    # draws: both seeds (10/40 = 0.25), seed 1 twice (0.0) or seed 0 twice (1.0)
    assert (low, high) == (0.0, 1.0)
    with pytest.raises(ValueError):
        cluster_bootstrap([[1.0], []])
    with pytest.raises(ValueError):
        pooled_comparison([])


def test_one_seeds_comparison_is_the_single_run_paired_comparison() -> None:
    """Per seed, the numpy bootstrap agrees with stats.paired_comparison (what the run's own
    report shows) up to resampling noise, and exactly on the difference and McNemar."""
    rng = random.Random(4)
    before, after = outcomes(rng, 300, 0.4), outcomes(rng, 300, 0.5)
    mine, reported = seed_comparison(before, after), paired_comparison(before, after)
    assert (mine.n, mine.difference, mine.only_after, mine.only_before, mine.mcnemar_p) == (
        reported.n, reported.difference, reported.only_after, reported.only_before, reported.mcnemar_p,
    )  # fmt: skip
    assert mine.ci95_low == pytest.approx(reported.ci95_low, abs=0.01)
    assert mine.ci95_high == pytest.approx(reported.ci95_high, abs=0.01)
