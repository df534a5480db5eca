"""The alpha-curriculum: the quantities GenEnv's environment policy is trained on.

- p_hat: the agent's empirical success rate on a task, from its n rollouts (the GRPO group);
  rewards in [0, 1] average, so binary rewards give the success rate.
- R_env(p_hat) = exp(-beta * (p_hat - alpha)^2): highest for tasks the agent solves about alpha
  of the time.
- the band filter: tasks with |p_hat - alpha| > k_min are excluded from environment updates
  (`rwr_fit` averages "in_band" and "generated"); "soft_band" keeps every task and lets the
  weight's own fall-off with R_env stand in for the cut.
- RWR weights: proportional to exp(lambda * R_env), normalised over the kept tasks. Inside the
  band R_env lies within 1 - exp(-beta k_min^2) (0.02 at the paper's beta and k_min) of its peak,
  so lambda must be large for R_env to shape the update: exp(lambda (R_env - 1)) is about
  exp(-lambda beta (p_hat - alpha)^2), a bell of width 1/sqrt(2 lambda beta) around alpha (0.16
  at lambda 10, beta 2: a task at the band's edge weighs 0.82 of one at alpha, at
  |p_hat - alpha| = 0.3 0.19; at lambda 1 every task in the band weighed the same to 2%).
  A fixed lambda keeps beta's meaning: a larger beta narrows the bell.
- ranking: tasks ordered by R_env, highest first (`rank_by_r_env`).
- Theorem 1 (ranking consistency): with n rollouts per task, a task farther from alpha
  (distance Delta2) is ranked above a closer one (Delta1 < Delta2) with probability at most
  4 * exp(-(2/9) * (Delta2 - Delta1)^2 * n).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from coevo.simulator.curriculum_context import ALPHA, BAND, BETA, LAMBDA

#: The curriculum's defaults, defined once with the simulator contract (k_min is its band).
K_MIN = BAND
#: Which tasks the RWR update fits and what its log-likelihood is averaged over
#: (GenEnvConfig.env_rwr_average; see rwr_fit).
RWR_AVERAGES = ("in_band", "generated", "soft_band")
#: Floating-point slack for the band edges (0.6 - 0.5 is 0.0999...98).
_EPS = 1e-9


def p_hat(rewards: Sequence[float]) -> float:
    """Empirical success rate of one task from its rollouts' rewards (each in [0, 1])."""
    if len(rewards) == 0:
        raise ValueError("p_hat needs at least one rollout")
    values = np.asarray(rewards, dtype=float)
    if np.any(values < 0) or np.any(values > 1) or not np.all(np.isfinite(values)):
        raise ValueError("rewards must lie in [0, 1]")
    return float(values.mean())


def r_env(p: float | np.ndarray, alpha: float = ALPHA, beta: float = BETA) -> float | np.ndarray:
    """The alpha-curriculum reward exp(-beta * (p - alpha)^2)."""
    result = np.exp(-beta * (np.asarray(p, dtype=float) - alpha) ** 2)
    return float(result) if np.ndim(result) == 0 else result


def in_band(p: float, alpha: float = ALPHA, k_min: float = K_MIN) -> bool:
    """True when the task is kept for the environment update: |p - alpha| <= k_min."""
    return abs(p - alpha) <= k_min + _EPS


def band_mask(ps: Sequence[float], alpha: float = ALPHA, k_min: float = K_MIN) -> np.ndarray:
    return np.array([in_band(p, alpha, k_min) for p in ps], dtype=bool)


def rwr_weights(r_envs: Sequence[float] | np.ndarray, lam: float = LAMBDA) -> np.ndarray:
    """Weights proportional to exp(lambda * R_env), summing to 1 (a softmax, computed stably)."""
    r = np.asarray(r_envs, dtype=float)
    if r.size == 0:
        return r
    z = lam * r
    w = np.exp(z - z.max())
    return w / w.sum()


def raw_weights(r_envs: Sequence[float] | np.ndarray, lam: float = LAMBDA) -> np.ndarray:
    """The unnormalised RWR weights exp(lambda (R_env - 1)), in (0, 1]: 1 for a task at alpha."""
    return np.exp(lam * (np.asarray(r_envs, dtype=float) - 1.0))


def band_mass(r_envs_in_band: Sequence[float] | np.ndarray, n_generated: int, lam: float = LAMBDA) -> float:
    """The weight of the in-band tasks when the RWR objective is averaged over every generated
    task, out-of-band ones weighing 0: sum_i exp(lambda (R_i - 1)) / n_generated, in [0, 1].
    Scaling the in-band log-likelihood by it makes the update's pull grow with the share of tasks
    in band, so a single lucky task cannot outweigh the KL penalty."""
    if n_generated < len(r_envs_in_band) or n_generated <= 0:
        raise ValueError("n_generated counts every generated task, in band or not")
    return float(raw_weights(r_envs_in_band, lam).sum() / n_generated)


def rwr_fit(
    r_envs: Sequence[float] | np.ndarray, in_band: Sequence[bool] | np.ndarray, average: str, lam: float = LAMBDA
) -> tuple[np.ndarray, np.ndarray, float]:
    """The RWR update of one D_env window (every task generated in it, with its band flag): the
    indices of the tasks it fits, their weights (a softmax of lambda R_env over them) and the
    scale of their log-likelihood.

    - "in_band": the in-band tasks, scale 1 (the paper's objective, weights summing to one);
    - "generated": the in-band tasks, scaled by their band mass (the objective averaged over every
      task of the window, out-of-band ones weighing 0);
    - "soft_band": every task of the window, scaled by the mean of exp(lambda (R_env - 1)) (the
      same average without the hard cut: a task just outside the band still counts a little).
    """
    if average not in RWR_AVERAGES:
        raise ValueError(f"the RWR average is one of {', '.join(RWR_AVERAGES)}")
    r = np.asarray(r_envs, dtype=float)
    mask = np.asarray(in_band, dtype=bool)
    if r.shape != mask.shape:
        raise ValueError("one band flag per task")
    kept = np.arange(r.size) if average == "soft_band" else np.flatnonzero(mask)
    if kept.size == 0:
        return kept, np.zeros(0), 0.0
    scale = 1.0 if average == "in_band" else band_mass(r[kept], r.size, lam)
    return kept, rwr_weights(r[kept], lam), scale


def rank_by_r_env(r_envs: Sequence[float] | np.ndarray) -> list[int]:
    """Task indices by R_env, highest (nearest alpha) first; ties keep their order (R_env is
    rounded to 12 places first, so p_hat = alpha -/+ d, whose squares differ in the last bit, tie)."""
    r = np.round(np.asarray(r_envs, dtype=float), 12)
    return [int(i) for i in np.argsort(-r, kind="stable")]


#: How dynamic sampling orders the learnable tasks it keeps: nearest alpha first (GenEnv's
#: curriculum on the agent's side), or as drawn (a uniform pick when the draw is random).
BASELINE_SELECTIONS = ("drawn", "alpha")


def learnable_first(
    groups: Sequence[Sequence[float]], limit: int, alpha: float = ALPHA, *, nearest_alpha: bool = True
) -> list[int]:
    """Indices of the tasks GRPO can learn from — those whose group's rewards are not all equal
    (equal rewards give every completion zero advantage) — nearest alpha first (ties: in order;
    with nearest_alpha False, in order), at most `limit` of them."""
    if limit < 0:
        raise ValueError("limit must be >= 0")
    mixed = [i for i, rewards in enumerate(groups) if len(rewards) > 1 and max(rewards) > min(rewards)]
    if nearest_alpha:
        mixed.sort(key=lambda i: (abs(p_hat(groups[i]) - alpha), i))
    return mixed[:limit]


def misranking_bound(delta1: float, delta2: float, n: int) -> float:
    """Theorem 1's bound on P(the task at distance delta2 from alpha looks at least as close as
    the one at delta1 < delta2), with n rollouts each: 4 exp(-(2/9)(delta2 - delta1)^2 n)."""
    if not delta1 < delta2:
        raise ValueError("the bound is for delta1 < delta2")
    return min(1.0, 4.0 * math.exp(-(2.0 / 9.0) * (delta2 - delta1) ** 2 * n))


def max_in_band_fraction(n: int, alpha: float = ALPHA, k_min: float = K_MIN) -> float:
    """The most any task can be in band with n binary rollouts: max over true success p of
    P(|Binomial(n, p)/n - alpha| <= k_min). With n = 8 and the paper's band only 4/8 is in band."""
    ks = [k for k in range(n + 1) if in_band(k / n, alpha, k_min)]
    if not ks:
        return 0.0
    grid = np.linspace(0.0, 1.0, 1001)
    best = 0.0
    for p in grid:
        prob = sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in ks)
        best = max(best, prob)
    return float(best)
