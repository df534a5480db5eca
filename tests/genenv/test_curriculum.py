"""R_env, the band filter, the RWR weights and the p_hat estimate."""

from __future__ import annotations

import math

import numpy as np
import pytest

from coevo.genenv import curriculum as c


def test_r_env_peaks_at_alpha_and_follows_the_formula() -> None:
    assert c.r_env(0.5) == pytest.approx(1.0)
    for p in (0.0, 0.1, 0.3, 0.45, 0.8, 1.0):
        assert c.r_env(p) == pytest.approx(math.exp(-2.0 * (p - 0.5) ** 2))
        assert c.r_env(p) < 1.0
    # symmetric around alpha, decreasing with the distance
    assert c.r_env(0.2) == pytest.approx(c.r_env(0.8))
    assert c.r_env(0.4) > c.r_env(0.3) > c.r_env(0.1)
    assert c.r_env(0.3, alpha=0.3, beta=10.0) == pytest.approx(1.0)
    assert c.r_env(0.0, beta=10.0) == pytest.approx(math.exp(-2.5))
    np.testing.assert_allclose(c.r_env(np.array([0.5, 1.0])), [1.0, math.exp(-0.5)])


def test_band_filter_keeps_exactly_the_band() -> None:
    assert c.in_band(0.5)
    # the edges are inside (0.6 - 0.5 is 0.09999999999999998 in floating point, 0.4 too)
    assert c.in_band(0.4) and c.in_band(0.6) and c.in_band(4 / 10) and c.in_band(6 / 10)
    assert not c.in_band(0.39) and not c.in_band(0.61)
    # with a group of 8 only 4/8 is in the paper's band
    assert [k for k in range(9) if c.in_band(k / 8)] == [4]
    assert [k for k in range(11) if c.in_band(k / 10)] == [4, 5, 6]
    assert c.band_mask([0.0, 0.5, 0.62, 0.41]).tolist() == [False, True, False, True]
    assert c.in_band(0.2, alpha=0.3, k_min=0.1) and not c.in_band(0.5, alpha=0.3, k_min=0.1)


def test_rwr_weights_are_a_softmax_of_lambda_r_env() -> None:
    r = [1.0, 0.9, 0.5]
    w = c.rwr_weights(r, lam=1.0)
    assert w.sum() == pytest.approx(1.0)
    assert w[0] > w[1] > w[2] > 0
    assert w[0] / w[2] == pytest.approx(math.exp(0.5))
    assert w[0] / w[1] == pytest.approx(math.exp(0.1))
    np.testing.assert_allclose(c.rwr_weights(r, lam=0.0), [1 / 3] * 3)
    sharp = c.rwr_weights(r, lam=1000.0)  # stable: no overflow, all mass on the best
    assert np.isfinite(sharp).all() and sharp[0] == pytest.approx(1.0)
    assert c.rwr_weights([]).size == 0


def test_p_hat_is_the_mean_reward_of_the_group() -> None:
    assert c.p_hat([1, 0, 0, 1, 1, 0, 0, 0]) == pytest.approx(3 / 8)
    assert c.p_hat([0.5, 1.0]) == pytest.approx(0.75)
    assert c.p_hat([0.0] * 8) == 0.0
    with pytest.raises(ValueError):
        c.p_hat([])
    with pytest.raises(ValueError):
        c.p_hat([1.2, 0.0])
    with pytest.raises(ValueError):
        c.p_hat([float("nan")])


def test_p_hat_is_unbiased_for_the_success_probability() -> None:
    rng = np.random.default_rng(0)
    for p in (0.1, 0.5, 0.8):
        estimates = [c.p_hat(rng.random(8) < p) for _ in range(4000)]
        assert np.mean(estimates) == pytest.approx(p, abs=0.01)
        # variance of a binomial proportion: p(1-p)/n
        assert np.var(estimates) == pytest.approx(p * (1 - p) / 8, rel=0.1)


def test_max_in_band_fraction_depends_on_the_group_size() -> None:
    assert c.max_in_band_fraction(8) == pytest.approx(math.comb(8, 4) / 2**8, abs=1e-6)
    assert c.max_in_band_fraction(10) > 0.6
    assert c.max_in_band_fraction(3) == 0.0  # 0, 1/3, 2/3, 1: none within 0.1 of 0.5


def test_band_mass_is_the_in_band_share_of_the_rwr_objective() -> None:
    assert c.band_mass([1.0, 1.0], 10) == pytest.approx(0.2)  # two tasks exactly at alpha, of ten
    r = float(c.r_env(0.4))
    assert c.band_mass([r], 4, lam=2.0) == pytest.approx(math.exp(2.0 * (r - 1.0)) / 4)
    assert c.band_mass([], 5) == 0.0
    with pytest.raises(ValueError):
        c.band_mass([1.0, 1.0], 1)  # more in band than generated


def test_rwr_fit_scales_the_likelihood_only_when_averaged_over_generated_tasks() -> None:
    r = [1.0, float(c.r_env(0.4))]
    weights, scale = c.rwr_fit(r, 10, "in_band")
    np.testing.assert_allclose(weights, c.rwr_weights(r))
    assert scale == 1.0
    weights, scale = c.rwr_fit(r, 10, "generated")
    np.testing.assert_allclose(weights, c.rwr_weights(r))
    assert scale == pytest.approx(c.band_mass(r, 10))
    with pytest.raises(ValueError, match="in_band, generated"):
        c.rwr_fit(r, 10, "sometimes")


def test_learnable_first_keeps_groups_with_unequal_rewards_nearest_alpha_first() -> None:
    groups = [
        [1, 1, 1, 1, 1],        # 0: all right: zero advantage
        [0, 0, 1, 0, 0],        # 1: p_hat 0.2
        [0, 0, 0, 0, 0],        # 2: all wrong
        [1, 0, 1, 0, 1],        # 3: p_hat 0.6
        [0.5, 0.5, 0.5],        # 4: equal partial rewards: zero advantage too
        [0, 1, 0, 1, 0],        # 5: p_hat 0.4, as near alpha as task 3: order breaks the tie
        [0.2, 0.9],             # 6: F1-style rewards, p_hat 0.55
        [1],                    # 7: one rollout: no group to compare
    ]
    assert c.learnable_first(groups, 10) == [6, 3, 5, 1]
    assert c.learnable_first(groups, 2) == [6, 3]
    assert c.learnable_first(groups, 0) == []
    assert c.learnable_first(groups, 10, alpha=0.2) == [1, 5, 6, 3]
    with pytest.raises(ValueError):
        c.learnable_first(groups, -1)
