"""Which instructions each AgentEvol iteration explores: spread evenly over the pool, and none an
earlier iteration explored while the pool still holds enough new ones."""

from __future__ import annotations

from collections.abc import Sequence

from coevo.client.evaluation import spread_indices


def iteration_picks(pool: Sequence[int], n: int, iteration: int) -> list[int]:
    """`n` indices of `pool` for `iteration` (1-based). Each iteration spreads its picks evenly over
    the indices no earlier iteration of the current round took; a round ends when fewer than `n`
    are left, and the next starts over the whole pool (the paper re-explores its instruction set
    every iteration; fresh instructions first give each iteration's successes new tasks)."""
    if iteration < 1:
        raise ValueError(f"iterations count from 1, got {iteration}")
    remaining = list(pool)
    for _ in range(iteration - 1):
        taken = set(_spread(remaining, n))
        remaining = [i for i in remaining if i not in taken]
        if len(remaining) < n:  # this round is spent: the next iteration starts a new one
            remaining = list(pool)
    return _spread(remaining, n)


def _spread(indices: Sequence[int], n: int) -> list[int]:
    return [indices[j] for j in spread_indices(len(indices), n)]
