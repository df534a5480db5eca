"""Theorem 1 of the GenEnv paper, checked end to end on the curriculum's own code: agents with a
known true success probability per task roll out n binary attempts per task; p_hat, R_env and
the ranking come from coevo.genenv.curriculum; the task farther from alpha must come out ahead
of the nearer one no more often than 4 exp(-(2/9) (Delta2 - Delta1)^2 n), and as often as the
binomial distribution says it does."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest

from coevo.genenv import curriculum as c

ALPHA, BETA = 0.5, 2.0
TRIALS = 8000


def _r_env_of_rollouts(p: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """R_env of one task in each trial: n Bernoulli(p) rollouts -> p_hat -> R_env."""
    rollouts = rng.random((TRIALS, n)) < p
    return np.asarray(c.r_env(np.array([c.p_hat(row) for row in rollouts]), ALPHA, BETA))


def _farther_ranked_first(p_near: float, p_far: float, n: int, rng: np.random.Generator) -> float:
    """How often the curriculum's ranking puts the farther task first. It is listed first, so a
    tie (which the ranking breaks by order) counts against the ranking, as in the theorem."""
    far, near = _r_env_of_rollouts(p_far, n, rng), _r_env_of_rollouts(p_near, n, rng)
    return float(np.mean([c.rank_by_r_env([f, m])[0] == 0 for f, m in zip(far, near)]))


def _exact(p_near: float, p_far: float, n: int) -> tuple[float, float]:
    """P(the farther task's p_hat is strictly closer to alpha), P(at least as close): the two
    binomials' joint distribution, summed exactly (ties are where a ranking may go either way)."""
    pmf = [[math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)] for p in (p_near, p_far)]
    strict = tied = 0.0
    for k_near, k_far in np.ndindex(n + 1, n + 1):
        d_near, d_far = abs(k_near / n - ALPHA), abs(k_far / n - ALPHA)
        mass = pmf[0][k_near] * pmf[1][k_far]
        if math.isclose(d_far, d_near, abs_tol=1e-12):
            tied += mass
        elif d_far < d_near:
            strict += mass
    return strict, strict + tied


# (p near alpha, p farther, n): both sides of alpha, the farther task above or below it, bounds
# from informative (< 1) to vacuous; the small-n cases misrank often, so the exact comparison
# has something to compare.
CASES = [
    (0.5, 0.9, 64),
    (0.6, 0.1, 128),
    (0.55, 0.05, 48),
    (0.5, 0.0, 40),
    (0.4, 0.85, 200),
    (0.45, 0.25, 12),
    (0.6, 0.2, 10),
    (0.5, 0.7, 8),
]


@pytest.mark.parametrize("p_near,p_far,n", CASES)
def test_farther_task_ranked_first_no_more_often_than_the_bound_allows(p_near: float, p_far: float, n: int) -> None:
    rng = np.random.default_rng(n)
    rate = _farther_ranked_first(p_near, p_far, n, rng)
    strict, at_least = _exact(p_near, p_far, n)
    slack = 4 * math.sqrt(max(at_least * (1 - at_least), 1e-4) / TRIALS)  # four standard errors
    assert rate <= c.misranking_bound(abs(p_near - ALPHA), abs(p_far - ALPHA), n) + slack
    # ties go to the farther task (listed first), so the rate is P(at least as close)
    assert rate == pytest.approx(at_least, abs=slack)
    assert strict <= at_least


def test_the_bound_is_informative_where_it_matters() -> None:
    """Most cases have a bound below 1, so the check above has teeth beyond the exact one."""
    bounds = [c.misranking_bound(abs(a - ALPHA), abs(b - ALPHA), n) for a, b, n in CASES]
    assert sum(b < 1 for b in bounds) >= 5
    assert c.misranking_bound(0.0, 0.4, 512) < 1e-6


def test_ranking_by_r_env_recovers_the_true_order_with_many_rollouts() -> None:
    """Seven tasks on both sides of alpha, 0.05-0.1 apart in distance: with 800 rollouts each,
    the R_env ranking orders nearly every pair as their true distances do, and the whole order
    comes out right in most trials."""
    rng = np.random.default_rng(7)
    ps = [0.5, 0.42, 0.64, 0.3, 0.75, 0.15, 0.92]  # distances 0, .08, .14, .2, .25, .35, .42
    truth = sorted(range(len(ps)), key=lambda i: abs(ps[i] - ALPHA))
    n, trials = 800, 200
    concordant, exact = 0, 0
    for _ in range(trials):
        r = [float(c.r_env(c.p_hat(rng.random(n) < p), ALPHA, BETA)) for p in ps]
        order = c.rank_by_r_env(r)
        position = {task: i for i, task in enumerate(order)}
        concordant += sum(position[a] < position[b] for a, b in combinations(truth, 2))
        exact += order == truth
    pairs = trials * len(ps) * (len(ps) - 1) // 2
    assert concordant / pairs > 0.99
    assert exact / trials > 0.9


def test_bound_arguments_are_checked() -> None:
    with pytest.raises(ValueError):
        c.misranking_bound(0.3, 0.2, 10)
