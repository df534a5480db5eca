"""Theorem 1 of the GenEnv paper, checked by simulation: with n rollouts per task, a task at
distance Delta2 from alpha is ranked at least as high (by p_hat, hence by R_env) as one at
Delta1 < Delta2 with probability at most 4 exp(-(2/9) (Delta2 - Delta1)^2 n)."""

from __future__ import annotations

import numpy as np
import pytest

from coevo.genenv import curriculum as c

DRAWS = 200_000


def _misranking_rate(p1: float, p2: float, n: int, rng: np.random.Generator, alpha: float = 0.5) -> float:
    """How often the farther task (p2) looks at least as close to alpha as the nearer one (p1),
    i.e. R_env(p_hat2) >= R_env(p_hat1); ties count as misrankings."""
    x1 = rng.binomial(n, p1, DRAWS) / n
    x2 = rng.binomial(n, p2, DRAWS) / n
    return float(np.mean(c.r_env(x2, alpha) >= c.r_env(x1, alpha)))


CASES = [
    # (p1 near alpha, p2 farther, n)
    (0.5, 0.9, 8), (0.5, 0.9, 32), (0.5, 0.1, 64), (0.45, 0.95, 16), (0.4, 1.0, 24),
    (0.55, 0.05, 40), (0.5, 0.8, 128), (0.6, 0.0, 12), (0.5, 0.7, 512),
]


@pytest.mark.parametrize("p1,p2,n", CASES)
def test_misranking_probability_is_below_the_bound(p1: float, p2: float, n: int) -> None:
    rng = np.random.default_rng(abs(hash((p1, p2, n))) % 2**32)
    d1, d2 = abs(p1 - 0.5), abs(p2 - 0.5)
    bound = c.misranking_bound(d1, d2, n)
    rate = _misranking_rate(p1, p2, n, rng)
    slack = 4 * np.sqrt(max(rate, 1e-4) * (1 - rate) / DRAWS)  # Monte-Carlo error
    assert rate <= bound + slack


def test_the_bound_is_informative_where_it_is_tested() -> None:
    """At least half the cases have a non-vacuous bound (< 1), so the test above has teeth."""
    informative = [c.misranking_bound(abs(a - 0.5), abs(b - 0.5), n) < 1.0 for a, b, n in CASES]
    assert sum(informative) >= len(CASES) // 2
    assert c.misranking_bound(0.0, 0.4, 512) < 1e-6


def test_misranking_falls_with_more_rollouts_as_the_theorem_says() -> None:
    rng = np.random.default_rng(1)
    rates = [_misranking_rate(0.5, 0.75, n, rng) for n in (4, 16, 64, 256)]
    assert all(a > b for a, b in zip(rates, rates[1:]))
    assert rates[-1] < 1e-3
    bounds = [c.misranking_bound(0.0, 0.25, n) for n in (4, 16, 64, 256)]
    assert all(a >= b for a, b in zip(bounds, bounds[1:]))


def test_bound_arguments_are_checked() -> None:
    with pytest.raises(ValueError):
        c.misranking_bound(0.3, 0.2, 10)
