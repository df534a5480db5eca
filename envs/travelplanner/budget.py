"""The official budget estimate for a generated query (utils/budget_estimation.py's rules).

For a one-city trip it pools the destination's listings, restaurants and every flight of the
route; for a state it pools all its cities and keeps flights on the trip's dates. Lowest,
highest and average prices times per-day multipliers give three totals; the level then sets
the budget from them (and the group size). Queries whose constraints leave too few options
are rejected, as the official generator rejects them (it raises and draws again).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.hard import FORBIDDING_RULE
from coevo.envs.travelplanner.records import Accommodation, Flight, Restaurant

MULTIPLIERS = {
    3: {"flight": 2, "hotel": 3, "restaurant": 9},
    5: {"flight": 3, "hotel": 5, "restaurant": 15},
    7: {"flight": 4, "hotel": 7, "restaurant": 21},
}
#: Room-type constraint -> listings the estimate keeps.
_ROOM_FILTER = {
    "shared room": ("Shared room",),
    "not shared room": ("Private room", "Entire home/apt"),
    "private room": ("Private room",),
    "entire room": ("Entire home/apt",),
}
#: Level -> share of the per-person estimate times the group size (easy: one person, no share).
_LEVEL_SHARE = {"medium": 0.75, "hard": 0.5}


class Unbudgetable(ValueError):
    """The query leaves too few flights, listings or restaurants to estimate (draw another)."""


def round_to_hundreds(value: float) -> int:
    return round(value / 100) * 100


def _estimate(values: Sequence[float], mode: str) -> float:
    if not values:
        raise Unbudgetable("nothing to price")
    if mode == "lowest":
        return min(values)
    if mode == "highest":
        return max(values)
    return sum(values) / len(values)


def estimate_budgets(
    db: Sandbox,
    org: str,
    dest: str,
    days: int,
    dates: Sequence[str],
    people: int | None = None,
    local_constraint: Mapping[str, Any] | None = None,
) -> dict[str, float]:
    """{"lowest", "highest", "average"} totals for the trip, or Unbudgetable."""
    hotels: list[Accommodation] = []
    restaurants: list[Restaurant] = []
    flights: list[Flight] = []
    if days == 3:
        hotels += db.accommodations(dest)
        restaurants += db.restaurants(dest)
        flights += db.route_flights(org, dest)
    else:
        for city in db.state_cities.get(dest, []):
            hotels += db.accommodations(city)
            restaurants += db.restaurants(city)
            flights += db.route_flights(org, city)
        flights = [f for f in flights if f.flight_date in dates]
    if people:
        hotels = [h for h in hotels if h.maximum_occupancy >= people]
    if local_constraint:
        hotels, restaurants = _apply_constraints(days, dates, flights, hotels, restaurants, local_constraint)
    factors = MULTIPLIERS[days]
    return {
        mode: _estimate([f.price for f in flights], mode) * factors["flight"]
        + _estimate([h.price for h in hotels], mode) * factors["hotel"]
        + _estimate([r.average_cost for r in restaurants], mode) * factors["restaurant"]
        for mode in ("lowest", "highest", "average")
    }


def _apply_constraints(
    days: int,
    dates: Sequence[str],
    flights: list[Flight],
    hotels: list[Accommodation],
    restaurants: list[Restaurant],
    constraint: Mapping[str, Any],
) -> tuple[list[Accommodation], list[Restaurant]]:
    first_day = [f for f in flights if f.flight_date == dates[0]]
    if constraint.get("transportation") == "no self-driving":
        if len(first_day) < (2 if days == 3 else 10):
            raise Unbudgetable("too few flights for a trip without driving")
    elif constraint.get("transportation") == "no flight":
        if len(first_day) < 2 or not flights or flights[0].distance > 800:
            raise Unbudgetable("no flight only for short, well-served routes")
    if constraint.get("room type"):
        kept = _ROOM_FILTER.get(constraint["room type"], ())
        hotels = [h for h in hotels if h.room_type in kept]
        if len(hotels) < days:
            raise Unbudgetable("too few listings of that room type")
    if constraint.get("house rule"):
        forbidding = FORBIDDING_RULE[constraint["house rule"]]
        hotels = [h for h in hotels if forbidding not in h.house_rules]
        if len(hotels) < days:
            raise Unbudgetable("too few listings with that house rule")
    if constraint.get("cuisine"):
        wanted = constraint["cuisine"]
        restaurants = [r for r in restaurants if any(c in r.cuisines for c in wanted)]
        if len(restaurants) < days:
            raise Unbudgetable("too few restaurants with those cuisines")
    return hotels, restaurants


def level_budget(level: str, days: int, people: int, budgets: Mapping[str, float]) -> int:
    """The query's budget from the three estimates, by the official formula for its level."""
    share = _LEVEL_SHARE.get(level)
    scale = 1.0 if share is None else people * share
    if days == 3:
        return round_to_hundreds((budgets["average"] + budgets["lowest"]) / 2 * scale)
    if days == 5:
        return round_to_hundreds(budgets["average"] * scale)
    return round_to_hundreds(round_to_hundreds((budgets["average"] + budgets["highest"]) / 2) * scale)
