"""The five hard constraints of the official evaluator (evaluation/hard_constraint.py).

Budget uses the official cost rules: a flight costs its price per person; self-driving costs
int(km x 0.05) per car of up to 5 people; a taxi int(km) per car of up to 4; a meal the
restaurant's average cost per person; a night the listing's price per room, with
ceil(people / maximum occupancy) rooms. A constraint the query does not set answers
(None, None) and counts neither for nor against the plan. As officially, a flight's price is
looked up by its number alone, and a meal in the origin city skips the cuisine check for the
rest of that day.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from coevo.envs.travelplanner.commonsense import (
    Check,
    CheckResult,
    Day,
    drive_cost,
    matching_accommodations,
    matching_restaurants,
    run_checks,
)
from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.plans import extract_from_to, filled, flight_number, name_and_city
from coevo.envs.travelplanner.queries import Query

#: Official keys, in the order the official `evaluation()` reports them, with the paper's names.
HARD_CONSTRAINTS: dict[str, str] = {
    "valid_cuisine": "Cuisine",
    "valid_room_rule": "Room Rule",
    "valid_transportation": "Transportation",
    "valid_room_type": "Room Type",
    "valid_cost": "Budget",
}

#: House-rule constraint -> the rule text that breaks it.
FORBIDDING_RULE = {
    "smoking": "No smoking",
    "parties": "No parties",
    "children under 10": "No children under 10",
    "visitors": "No visitors",
    "pets": "No pets",
}

#: Room-type constraint -> does a listing's `room type` satisfy it.
ROOM_TYPE_OK: dict[str, Callable[[str], bool]] = {
    "not shared room": lambda room: room != "Shared room",
    "shared room": lambda room: room == "Shared room",
    "private room": lambda room: room == "Private room",
    "entire room": lambda room: room == "Entire home/apt",
}


def _days(query: Query, plan: Sequence[Day]) -> Sequence[Day]:
    return plan[: min(query.days, len(plan))]


def total_cost(query: Query, plan: Sequence[Day], db: Sandbox) -> float:
    """What the plan costs the whole group under the official rules."""
    people = query.people_number
    total: float = 0
    for day in _days(query, plan):
        value = day["transportation"]
        if filled(value):
            origin, destination = extract_from_to(value)
            if origin is None or destination is None:
                origin, destination = extract_from_to(day["current_city"])
            if origin is not None and destination is not None:
                if "flight number" in value.lower():
                    flights = db.flights_numbered(flight_number(value))
                    if flights:
                        total += flights[0].price * people
                elif "self-driving" in value.lower():
                    cost = drive_cost(db, origin, destination, "self-driving")
                    total += _require(cost) * math.ceil(people / 5)
                elif "taxi" in value.lower():
                    cost = drive_cost(db, origin, destination, "taxi")
                    total += _require(cost) * math.ceil(people / 4)
        for meal in ("breakfast", "lunch", "dinner"):
            if filled(day[meal]):
                found = matching_restaurants(db, day[meal])
                if found:
                    total += found[0].average_cost * people
        if filled(day["accommodation"]):
            stays = matching_accommodations(db, day["accommodation"])
            if stays:
                total += stays[0].price * math.ceil(people / stays[0].maximum_occupancy)
    return total


def _require(cost: int | None) -> int:
    if cost is None:  # the official script fails here (None * int); report it as a bad plan
        raise ValueError("a drive in the plan has no cost in the sandbox")
    return cost


def valid_room_rule(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    rule = query.constraint("house rule")
    if rule is None:
        return None, None
    for day in _days(query, plan):
        if filled(day["accommodation"]):
            stays = matching_accommodations(db, day["accommodation"])
            forbidding = FORBIDDING_RULE.get(rule)
            if stays and forbidding is not None and forbidding in str(stays[0].house_rules):
                return False, f"The house rule should be {rule}."
    return True, None


def valid_cuisine(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    wanted = query.constraint("cuisine")
    if not wanted:
        return None, None
    covered: set[str] = set()
    for day in _days(query, plan):
        for meal in ("breakfast", "lunch", "dinner"):
            if filled(day[meal]):
                _, city = name_and_city(day[meal])
                if city == query.org:
                    break  # the official loop `continue`s past the rest of the day
                found = matching_restaurants(db, day[meal])
                if found:
                    covered.update(c for c in wanted if c in found[0].cuisines)
    for cuisine in wanted:
        if cuisine not in covered:
            return False, f"The cuisine {cuisine} is not satisfied."
    return True, None


def valid_transportation(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    rule = query.constraint("transportation")
    if rule is None:
        return None, None
    for day in _days(query, plan):
        value = day["transportation"]
        if filled(value):
            if rule == "no flight" and "Flight" in value:
                return False, f"The transportation should not be {rule}."
            if rule == "no self-driving" and "Self-driving" in value:
                return False, f"The transportation should not be {rule}."
    return True, None


def valid_room_type(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    wanted = query.constraint("room type")
    if wanted is None:
        return None, None
    for day in _days(query, plan):
        if filled(day["accommodation"]):
            stays = matching_accommodations(db, day["accommodation"])
            accepts = ROOM_TYPE_OK.get(wanted)
            if stays and accepts is not None and not accepts(stays[0].room_type):
                return False, f"The room type should be {wanted}."
    return True, None


def valid_cost(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    return bool(total_cost(query, plan, db) <= query.budget), None


CONSTRAINTS: dict[str, Check] = {
    "valid_cuisine": valid_cuisine,
    "valid_room_rule": valid_room_rule,
    "valid_transportation": valid_transportation,
    "valid_room_type": valid_room_type,
    "valid_cost": valid_cost,
}


def hard_evaluation(query: Query, plan: Sequence[Day], db: Sandbox) -> dict[str, CheckResult]:
    """All five constraints."""
    return run_checks(CONSTRAINTS, query, plan, db)
