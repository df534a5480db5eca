"""The five hard constraints and the official cost rules, on the tiny sandbox."""

from __future__ import annotations

import copy

import pytest

from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.scoring import evaluate_plan
from coevo.envs.travelplanner.hard import (
    HARD_CONSTRAINTS,
    hard_evaluation,
    total_cost,
    valid_cost,
    valid_cuisine,
    valid_room_rule,
    valid_room_type,
    valid_transportation,
)
from tests.travelplanner.test_commonsense import SELF_DRIVE_BACK, SELF_DRIVE_OUT, TAXI_BACK, edited
from tests.travelplanner.tiny import plan, query

TAXI_OUT = "Taxi, from Springfield to Rivertown, duration: 7 hours 10 mins, distance: 642 km, cost: 642"


def test_cost_of_the_reference_plan(tiny: Sandbox) -> None:
    # Flights (100 + 120) x 2 people; meals (20 + 30 + 15 + 40 + 10) x 2; the loft (200, sleeps 4) x 2 nights.
    assert total_cost(query(), plan(), tiny) == 440 + 230 + 400 == 1070


@pytest.mark.parametrize(("budget", "ok"), [(1070, True), (1069, False)])
def test_budget_is_inclusive(tiny: Sandbox, budget: int, ok: bool) -> None:
    assert valid_cost(query(budget=budget), plan(), tiny) == (ok, None)


@pytest.mark.parametrize(
    ("people", "out", "back", "expected"),
    [
        # self-driving: int(642 x 0.05) = 32 and int(640 x 0.05) = 32 per car of 5
        (2, SELF_DRIVE_OUT, SELF_DRIVE_BACK, 64 + 115 * 2 + 200 * 1 * 2),
        (6, SELF_DRIVE_OUT, SELF_DRIVE_BACK, 64 * 2 + 115 * 6 + 200 * 2 * 2),
        # taxi: int(km) per car of 4
        (2, TAXI_OUT, TAXI_BACK, (642 + 640) + 115 * 2 + 200 * 2),
        (5, TAXI_OUT, TAXI_BACK, (642 + 640) * 2 + 115 * 5 + 200 * 2 * 2),
    ],
)
def test_drive_costs_per_car_and_rooms_per_occupancy(
    tiny: Sandbox, people: int, out: str, back: str, expected: int
) -> None:
    p = edited(d1={"transportation": out}, d3={"transportation": back})
    assert total_cost(query(people_number=people), p, tiny) == expected


def test_flight_price_is_per_person_and_found_by_number(tiny: Sandbox) -> None:
    # F0000002 costs 150; the route text is not consulted for the price.
    p = edited(d1={"transportation": "Flight Number: F0000002, from Springfield to Rivertown"})
    assert total_cost(query(people_number=3), p, tiny) == (150 + 120) * 3 + 115 * 3 + 200 * 2


@pytest.mark.parametrize(
    ("rule", "ok"),
    [("parties", False), ("pets", False), ("smoking", True), ("visitors", True), ("children under 10", True)],
)
def test_room_rule(tiny: Sandbox, rule: str, ok: bool) -> None:
    # The loft's rules are "No parties & No pets".
    expected = (True, None) if ok else (False, f"The house rule should be {rule}.")
    assert valid_room_rule(query(local_constraint={"house rule": rule}), plan(), tiny) == expected


@pytest.mark.parametrize(
    ("stay", "wanted", "ok"),
    [
        ("Sunny Loft Downtown", "entire room", True),
        ("Sunny Loft Downtown", "not shared room", True),
        ("Sunny Loft Downtown", "private room", False),
        ("Sunny Loft Downtown", "shared room", False),
        ("Quiet Private Room", "private room", True),
        ("Quiet Private Room", "entire room", False),
        ("Shared Bunk", "shared room", True),
        ("Shared Bunk", "not shared room", False),
    ],
)
def test_room_type(tiny: Sandbox, stay: str, wanted: str, ok: bool) -> None:
    value = {"accommodation": f"{stay}, Rivertown"}
    expected = (True, None) if ok else (False, f"The room type should be {wanted}.")
    assert valid_room_type(query(local_constraint={"room type": wanted}), edited(d1=value, d2=value), tiny) == expected


def test_cuisine_must_cover_every_wanted_cuisine(tiny: Sandbox) -> None:
    assert valid_cuisine(query(local_constraint={"cuisine": ["Chinese", "Mexican", "French"]}), plan(), tiny) == (
        True,
        None,
    )
    assert valid_cuisine(query(local_constraint={"cuisine": ["Chinese", "Mediterranean"]}), plan(), tiny) == (
        False,
        "The cuisine Mediterranean is not satisfied.",
    )


def test_a_meal_at_home_skips_the_rest_of_that_day_for_cuisines(tiny: Sandbox) -> None:
    q = query(local_constraint={"cuisine": ["Chinese"]})
    # Red Fork (Chinese) is day 1's dinner; a lunch at home before it hides it from the check.
    home_first = edited(d1={"lunch": "Home Diner, Springfield"})
    assert valid_cuisine(q, home_first, tiny) == (False, "The cuisine Chinese is not satisfied.")
    home_after = edited(d1={"lunch": "Red Fork, Rivertown", "dinner": "Home Diner, Springfield"})
    assert valid_cuisine(q, home_after, tiny) == (True, None)


@pytest.mark.parametrize(
    ("rule", "out", "back", "ok"),
    [
        ("no flight", None, None, False),
        ("no flight", TAXI_OUT, TAXI_BACK, True),
        ("no flight", SELF_DRIVE_OUT, SELF_DRIVE_BACK, True),
        ("no self-driving", None, None, True),
        ("no self-driving", SELF_DRIVE_OUT, SELF_DRIVE_BACK, False),
    ],
)
def test_transportation(tiny: Sandbox, rule: str, out: str | None, back: str | None, ok: bool) -> None:
    p = copy.deepcopy(plan())
    if out:
        p[0]["transportation"], p[2]["transportation"] = out, back
    expected = (True, None) if ok else (False, f"The transportation should not be {rule}.")
    assert valid_transportation(query(local_constraint={"transportation": rule}), p, tiny) == expected


def test_unset_constraints_are_not_applicable(tiny: Sandbox) -> None:
    results = hard_evaluation(query(), plan(), tiny)
    assert list(results) == list(HARD_CONSTRAINTS)
    assert results == {
        "valid_cuisine": (None, None),
        "valid_room_rule": (None, None),
        "valid_transportation": (None, None),
        "valid_room_type": (None, None),
        "valid_cost": (True, None),
    }


def test_hard_constraints_wait_for_complete_and_sandboxed_plans(tiny: Sandbox) -> None:
    passing = evaluate_plan(query(), plan(), tiny)
    assert passing.final_pass and passing.cost == 1070 and passing.hard is not None
    hallucinated = evaluate_plan(query(), edited(d2={"lunch": "Ghost Kitchen, Rivertown"}), tiny)
    assert hallucinated.hard is None and not hallucinated.final_pass and hallucinated.delivered
    repeated = evaluate_plan(query(), edited(d2={"lunch": "Blue Spoon, Rivertown"}), tiny)
    # Diverse restaurants fails, but the plan is complete and sandboxed: hard constraints are scored.
    assert (
        repeated.hard is not None and repeated.hard_pass and not repeated.commonsense_pass and not repeated.final_pass
    )
    over_budget = evaluate_plan(query(budget=1000), plan(), tiny)
    assert over_budget.commonsense_pass and not over_budget.hard_pass and not over_budget.final_pass
    assert not evaluate_plan(query(), [], tiny).delivered
    assert over_budget.to_dict()["hard"]["valid_cost"] == {"name": "Budget", "passed": False, "message": None}
