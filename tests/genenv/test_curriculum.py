"""R_env, the band filter, the RWR weights and the p_hat estimate."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from coevo.genenv import curriculum as c

FAMILY = "function_calling"


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


def test_rwr_fit_keeps_the_band_or_weighs_every_task_and_scales_by_the_average() -> None:
    ps = [0.5, 0.4, 0.0, 0.62]
    r = [float(c.r_env(p)) for p in ps]
    band = c.band_mask(ps)
    at, weights, scale = c.rwr_fit(r, band, "in_band")
    assert at.tolist() == [0, 1] and scale == 1.0
    np.testing.assert_allclose(weights, c.rwr_weights(r[:2]))
    at, weights, scale = c.rwr_fit(r, band, "generated")
    assert at.tolist() == [0, 1]
    np.testing.assert_allclose(weights, c.rwr_weights(r[:2]))
    assert scale == pytest.approx(c.band_mass(r[:2], 4))
    at, weights, scale = c.rwr_fit(r, band, "soft_band")
    assert at.tolist() == [0, 1, 2, 3]  # no hard cut: the task at 0.62 and the one at 0 count too
    np.testing.assert_allclose(weights, c.rwr_weights(r))
    assert scale == pytest.approx(np.mean(np.exp(c.LAMBDA * (np.array(r) - 1))))
    at, weights, scale = c.rwr_fit([r[2]], [False], "in_band")
    assert at.size == 0 and weights.size == 0 and scale == 0.0
    with pytest.raises(ValueError, match="in_band, generated, soft_band"):
        c.rwr_fit(r, band, "sometimes")
    with pytest.raises(ValueError, match="one band flag per task"):
        c.rwr_fit(r, band[:2], "in_band")


def _weights(ps: list[float], *, alpha: float = 0.5, beta: float = 2.0, average: str = "in_band") -> np.ndarray:
    """The default RWR weights of tasks with these p_hat, each task's weight at its own index
    (0 where the update leaves it out)."""
    at, w, _ = c.rwr_fit(c.r_env(np.array(ps), alpha, beta), c.band_mask(ps, alpha), average)
    full = np.zeros(len(ps))
    full[at] = w
    return full


def test_tasks_nearer_alpha_weigh_clearly_more() -> None:
    """At lambda = 1 every in-band task weighed the same to 2% (R_env >= 0.98 there), so the
    update was plain fine-tuning on them; the default weighs them by their distance to alpha."""
    w = _weights([0.5, 0.4, 0.6])  # a group of 10
    assert w[0] / w[1] > 1.15 and w[1] == pytest.approx(w[2])
    # without the hard cut (a group of 5: only 0.4 and 0.6 are in band), a task at 0.2 still
    # counts, well below those in band, and one never solved counts for almost nothing
    w = _weights([0.4, 0.6, 0.2, 0.0], average="soft_band")
    assert w[0] == pytest.approx(w[1]) and w[0] / w[2] > 3 and w[2] / w[3] > 3


def _fitted_n_tools(weights: np.ndarray, tmp_path: Path, name: str) -> np.ndarray:
    """pi_env's n_tools marginal after update_parametric on three tasks that differ only there."""
    from coevo.simulator.policies.parametric import ParametricPolicy
    from coevo.genenv.env_update import update_parametric

    initial = tmp_path / "initial.json"
    ParametricPolicy([FAMILY]).save(initial)
    knobs = {"n_args": 1, "signature": "minimal", "phrasing": "explicit", "numbers": "digits", "tool": "rent_car"}
    samples = [(FAMILY, {**knobs, "n_tools": tools}) for tools in (1, 2, 4)]
    out = tmp_path / f"{name}.json"
    update_parametric(initial, initial, out, samples, weights, lr=0.5, steps=100, kl_coef=0.05, kl_cap=10.0)
    return ParametricPolicy.from_json(json.loads(out.read_text())).knob_probs(FAMILY, "n_tools")


def test_beta_shapes_the_update_and_the_fitted_pi_env(tmp_path: Path) -> None:
    """A larger beta narrows the curriculum: the task at alpha gains weight over those at the
    band's edge, and the fitted pi_env puts clearly more on its knob value."""
    ps = [0.5, 0.4, 0.6]
    soft, sharp = _weights(ps, beta=2.0), _weights(ps, beta=8.0)
    assert sharp[0] - soft[0] > 0.1
    fitted_soft, fitted_sharp = _fitted_n_tools(soft, tmp_path, "soft"), _fitted_n_tools(sharp, tmp_path, "sharp")
    assert fitted_sharp[0] - fitted_soft[0] > 0.05


def test_alpha_shapes_the_update_and_the_fitted_pi_env(tmp_path: Path) -> None:
    """The same three in-band tasks (a group of 20) weighed for alpha 0.45 and 0.55: the weight
    follows the task nearest alpha, and so does pi_env."""
    ps = [0.45, 0.5, 0.55]
    low, high = _weights(ps, alpha=0.45), _weights(ps, alpha=0.55)
    assert low.argmax() == 0 and high.argmax() == 2
    assert low[0] / low[2] > 1.15 and high[2] / high[0] > 1.15
    fitted_low, fitted_high = _fitted_n_tools(low, tmp_path, "low"), _fitted_n_tools(high, tmp_path, "high")
    assert fitted_low[0] - fitted_high[0] > 0.04 and fitted_high[2] - fitted_low[2] > 0.04


def test_rank_by_r_env_puts_the_task_nearest_alpha_first() -> None:
    ps = [0.9, 0.5, 0.2, 0.6, 0.4]
    assert c.rank_by_r_env(c.r_env(np.array(ps))) == [1, 3, 4, 2, 0]  # 0.6 and 0.4 tie: in order
    assert c.rank_by_r_env([0.3, 0.7, 0.7]) == [1, 2, 0]
    assert c.rank_by_r_env([]) == []


def test_learnable_first_keeps_groups_with_unequal_rewards_nearest_alpha_first() -> None:
    groups = [
        [1, 1, 1, 1, 1],  # 0: all right: zero advantage
        [0, 0, 1, 0, 0],  # 1: p_hat 0.2
        [0, 0, 0, 0, 0],  # 2: all wrong
        [1, 0, 1, 0, 1],  # 3: p_hat 0.6
        [0.5, 0.5, 0.5],  # 4: equal partial rewards: zero advantage too
        [0, 1, 0, 1, 0],  # 5: p_hat 0.4, as near alpha as task 3: order breaks the tie
        [0.2, 0.9],  # 6: F1-style rewards, p_hat 0.55
        [1],  # 7: one rollout: no group to compare
    ]
    assert c.learnable_first(groups, 10) == [6, 3, 5, 1]
    assert c.learnable_first(groups, 2) == [6, 3]
    assert c.learnable_first(groups, 0) == []
    assert c.learnable_first(groups, 10, alpha=0.2) == [1, 5, 6, 3]
    assert c.learnable_first(groups, 10, nearest_alpha=False) == [1, 3, 5, 6]  # as drawn
    assert c.learnable_first(groups, 2, nearest_alpha=False) == [1, 3]
    with pytest.raises(ValueError):
        c.learnable_first(groups, -1)
