"""AgentEvol's exploration picks: new instructions each iteration while the pool has them."""

from __future__ import annotations

import pytest

from coevo.agentevol.explore_picks import iteration_picks
from coevo.client.evaluation import spread_indices


def test_iterations_explore_disjoint_instructions_when_the_pool_holds_them() -> None:
    # BFCL live_simple minus 32 BC instructions: 226 left, 112 explored an iteration (AgentEvol
    # run 6). Shifting the spread by one index shared 56 of them between iterations 1 and 2.
    pool = list(range(1000, 1226))
    first, second = iteration_picks(pool, 112, 1), iteration_picks(pool, 112, 2)
    assert len(first) == len(second) == 112
    assert not set(first) & set(second)
    assert set(first) | set(second) <= set(pool)
    assert first == [pool[j] for j in spread_indices(len(pool), 112)]  # iteration 1 as before


def test_a_spent_pool_starts_a_new_round() -> None:
    pool = list(range(10))
    picks = [iteration_picks(pool, 4, k) for k in (1, 2, 3, 4)]
    assert not set(picks[0]) & set(picks[1])
    assert picks[2] == picks[0] and picks[3] == picks[1]  # 2 left after two iterations: a new round
    assert iteration_picks(pool, 20, 3) == pool  # more wanted than the pool holds: all of it, every time


def test_iterations_count_from_one() -> None:
    with pytest.raises(ValueError, match="count from 1"):
        iteration_picks([1, 2, 3], 2, 0)
