"""Held-out evaluation: fixed seeded task lists, refusals of non-held-out splits, rows with
Wilson intervals, paired comparisons; checked against scipy and a real env over HTTP."""

from __future__ import annotations

import asyncio

import pytest
from scipy.stats import binomtest

from coevo.client.heldout import HeldoutEvaluator, HeldoutSplit, UnscoredEpisode, task_indices
from coevo.client.policies.expert import ExpertPolicy
from coevo.client.policies.random_policy import RandomPolicy
from coevo.client.stats import mcnemar_exact, paired_comparison, wilson_interval
from tests.agents.servers import asgi_env_client


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (1, 1), (37, 200), (199, 200)])
def test_wilson_interval_matches_scipy(k: int, n: int) -> None:
    ours = wilson_interval(k, n)
    theirs = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert ours == pytest.approx((theirs.low, theirs.high), abs=1e-9)
    assert ours[0] <= k / n <= ours[1]


def test_wilson_interval_refuses_impossible_counts() -> None:
    with pytest.raises(ValueError):
        wilson_interval(3, 0)
    with pytest.raises(ValueError):
        wilson_interval(5, 4)


@pytest.mark.parametrize(("b", "c"), [(0, 0), (5, 0), (12, 4), (3, 9), (30, 31)])
def test_mcnemar_exact_matches_a_binomial_test(b: int, c: int) -> None:
    expected = 1.0 if b + c == 0 else binomtest(b, b + c, 0.5).pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, abs=1e-12)


def test_paired_comparison() -> None:
    same = [1.0, 0.0] * 50
    tie = paired_comparison(same, same)
    assert (tie.difference, tie.ci95_low, tie.ci95_high, tie.mcnemar_p) == (0.0, 0.0, 0.0, 1.0)
    before = [0.0] * 100
    after = [1.0] * 30 + [0.0] * 70
    gain = paired_comparison(before, after)
    assert gain.difference == pytest.approx(0.3) and gain.only_after == 30 and gain.only_before == 0
    assert 0.0 < gain.ci95_low < 0.3 < gain.ci95_high < 0.5 and gain.mcnemar_p < 1e-6
    mixed = paired_comparison([1.0] * 10 + [0.0] * 90, [0.0] * 10 + [1.0] * 10 + [0.0] * 80)
    assert mixed.difference == 0.0 and mixed.ci95_low < 0.0 < mixed.ci95_high and mixed.mcnemar_p == 1.0
    with pytest.raises(ValueError):
        paired_comparison([1.0], [1.0, 0.0])


def test_task_lists_are_fixed_by_seed() -> None:
    first = task_indices(500, 40, 0, "webshop", "test")
    assert first == task_indices(500, 40, 0, "webshop", "test") == sorted(first) and len(set(first)) == 40
    assert first != task_indices(500, 40, 1, "webshop", "test")
    assert first != task_indices(500, 40, 0, "webshop", "eval")
    assert task_indices(30, 40, 0, "e", "s") == task_indices(30, 0, 0, "e", "s") == list(range(30))
    assert HeldoutSplit.parse("bfcl:simple_python:100", 20) == HeldoutSplit("bfcl", "simple_python", 100)
    assert HeldoutSplit.parse("alfworld:valid_unseen", 20).n == 20
    for bad in ("bfcl", "bfcl:", "a:b:c:d", "a:b:-1"):
        with pytest.raises(ValueError):
            HeldoutSplit.parse(bad, 20)


def test_heldout_rows_over_http_on_the_same_tasks_for_every_policy() -> None:
    async def run() -> None:
        async with asgi_env_client("guess") as client:
            evaluator = HeldoutEvaluator({"guess": [client]}, [HeldoutSplit("guess", "test", 12)], seed=3)
            [expert] = await evaluator.evaluate(ExpertPolicy())
            lists = evaluator.recorded_lists()
            # The random policy abstains where no action list is published: its episodes end
            # policy_error, which a held-out score never counts as a failure (end statuses).
            with pytest.raises(UnscoredEpisode, match="ended policy_error"):
                await evaluator.evaluate(RandomPolicy(seed=0))
            assert evaluator.recorded_lists() == lists and len(lists["guess:test"]) == 12
            assert all(t.startswith("test-") for t in lists["guess:test"])
            assert (expert.n, expert.success_rate, expert.outcomes) == (12, 1.0, [1.0] * 12)
            assert expert.ci95_low == pytest.approx(wilson_interval(12, 12)[0]) and expert.ci95_high == 1.0
            assert "outcomes" not in expert.metrics() and expert.metrics()["split"] == "test"
            again = HeldoutEvaluator({"guess": [client]}, [HeldoutSplit("guess", "test", 12)], seed=3)
            await again.task_lists()
            assert again.recorded_lists() == lists  # another run, the same tasks
            with pytest.raises(ValueError, match="not held out"):
                await HeldoutEvaluator({"guess": [client]}, [HeldoutSplit("guess", "train", 5)]).task_lists()
            with pytest.raises(ValueError, match="no split"):
                await HeldoutEvaluator({"guess": [client]}, [HeldoutSplit("guess", "nope", 5)]).task_lists()
        with pytest.raises(ValueError, match="no server"):
            HeldoutEvaluator({}, [HeldoutSplit("guess", "test", 5)])

    asyncio.run(run())
