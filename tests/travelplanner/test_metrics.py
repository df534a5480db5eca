"""The official aggregate metrics, on three hand-scored queries."""

from __future__ import annotations

import pytest

from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.metrics import hard_constraint_count, score
from coevo.envs.travelplanner.scoring import evaluate_plan
from tests.travelplanner.tiny import plan, query


def test_hard_constraint_denominator_follows_the_official_rule() -> None:
    assert hard_constraint_count(query(level="easy")) == 1
    assert hard_constraint_count(query(level="medium", local_constraint={"room type": "entire room"})) == 2
    # Medium queries never count transportation; hard ones count all four.
    assert hard_constraint_count(query(level="medium", local_constraint={"transportation": "no flight"})) == 1
    hard = query(
        level="hard", local_constraint={"house rule": "pets", "cuisine": ["Chinese"], "transportation": "no flight"}
    )
    assert hard_constraint_count(hard) == 4


def test_six_metrics(tiny: Sandbox) -> None:
    easy = query(level="easy")
    medium = query(level="medium", local_constraint={"house rule": "parties"})  # the loft forbids parties
    hard = query(
        level="hard", local_constraint={"house rule": "smoking", "room type": "entire room", "cuisine": ["Indian"]}
    )
    board = score(
        [
            (easy, evaluate_plan(easy, plan(), tiny)),
            (medium, evaluate_plan(medium, plan(), tiny)),
            (hard, evaluate_plan(hard, None, tiny)),
        ]
    )
    metrics = board.metrics()
    assert metrics["delivery_rate"] == pytest.approx(2 / 3)
    assert metrics["commonsense_micro_pass_rate"] == pytest.approx(16 / 24)
    assert metrics["commonsense_macro_pass_rate"] == pytest.approx(2 / 3)
    # Denominator 1 + 2 + 4; passed: easy's budget, medium's budget (its house rule fails).
    assert metrics["hard_micro_pass_rate"] == pytest.approx(2 / 7)
    assert metrics["hard_macro_pass_rate"] == pytest.approx(1 / 3)
    assert metrics["final_pass_rate"] == pytest.approx(1 / 3)
    report = board.report()
    assert report["queries"] == 3
    assert report["per_constraint"]["Room Rule"] == {"passed": 0, "failed": 1}
    assert report["per_constraint"]["Budget"] == {"passed": 2, "failed": 0}
