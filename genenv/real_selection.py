"""Which real tasks an epoch of the real-task arm trains on: GenEnv's alpha-curriculum rule over a
real env's train split, with per-task success estimates from the env server instead of a
group's p_hat on generated tasks (docs/genenv.md, "The real-task arms").

- A task's estimate is its success rate under the freshest policy tag of the arm that played it
  at least `min_episodes` judged times (the server's per-task statistics).
- In band (|p - alpha| <= k_min, the band GenEnv's RWR keeps): ranked by
  R_env = exp(-beta (p - alpha)^2), highest first (ties: split order), up to `count`.
- Fallback, when the band holds fewer than `count` tasks (always so in the first epoch, when no
  task has an estimate): the rest are drawn uniformly from the tasks without an estimate (never
  judged often enough: their difficulty is unknown), then, if those run out, from the
  out-of-band tasks, highest R_env first.
- The uniform twin draws `count` tasks uniformly from the split; on the same seed it draws
  exactly what the curriculum's fallback draws when no task has an estimate, so both arms start
  from the same tasks.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from coevo.genenv import curriculum


@dataclass(frozen=True)
class Estimate:
    """A task's estimated success rate, from `episodes` judged episodes under policy tag `tag`."""

    success_rate: float
    episodes: int
    tag: str


@dataclass
class Selection:
    """An epoch's chosen task ids and how each share was chosen (the epoch row reports them)."""

    task_ids: list[str] = field(default_factory=list)
    in_band: int = 0
    unseen_fill: int = 0
    out_of_band_fill: int = 0
    #: Tasks of the split with an estimate when the choice was made.
    estimated: int = 0

    def counts(self) -> dict[str, int]:
        return {
            "real_in_band": self.in_band,
            "real_unseen_fill": self.unseen_fill,
            "real_out_of_band_fill": self.out_of_band_fill,
            "real_estimated": self.estimated,
        }


def uniform_tasks(split_ids: Sequence[str], count: int, rng: random.Random) -> Selection:
    """`count` tasks drawn uniformly without replacement (every task when the split is smaller)."""
    chosen = rng.sample(list(split_ids), min(count, len(split_ids)))
    return Selection(chosen, unseen_fill=len(chosen))


def curriculum_tasks(
    split_ids: Sequence[str],
    estimates: Mapping[str, Estimate],
    count: int,
    rng: random.Random,
    *,
    alpha: float,
    beta: float,
    k_min: float,
) -> Selection:
    """`count` tasks by the alpha-curriculum rule (module docstring): in band nearest alpha first,
    then unseen tasks uniformly, then out-of-band tasks nearest alpha first."""
    known = [t for t in split_ids if t in estimates]
    inside = [t for t in known if curriculum.in_band(estimates[t].success_rate, alpha, k_min)]
    outside = [t for t in known if t not in set(inside)]
    ranked = [inside[i] for i in curriculum.rank_by_r_env([_r_env(estimates[t], alpha, beta) for t in inside])]
    chosen = ranked[:count]
    unseen = [t for t in split_ids if t not in estimates]
    # The same draw as uniform_tasks on the same RNG when nothing is known yet.
    fill = rng.sample(unseen, min(count - len(chosen), len(unseen))) if len(chosen) < count else []
    rest = [outside[i] for i in curriculum.rank_by_r_env([_r_env(estimates[t], alpha, beta) for t in outside])]
    late = rest[: max(0, count - len(chosen) - len(fill))]
    return Selection([*chosen, *fill, *late], len(chosen), len(fill), len(late), len(known))


def _r_env(estimate: Estimate, alpha: float, beta: float) -> float:
    return float(curriculum.r_env(estimate.success_rate, alpha, beta))
