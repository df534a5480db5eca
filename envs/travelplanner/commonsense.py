"""The eight commonsense checks of the official evaluator (evaluation/commonsense_constraint.py).

Each check returns (passed, message) and reproduces the official rule, including its
leniencies, so scores here match the leaderboard's:
- only the first `days` records of a plan are read;
- attraction strings are split on ';' and the part after the last ';' is ignored;
- on a day that is not a travel day, "within current city" compares the city name character by
  character (the official code iterates over the string), which almost always passes;
- names match by substring within the named city, and the minimum-nights rule is only
  enforced when exactly one accommodation matches.
A record missing a field, or a field the official code could not parse, fails the check with
a message instead of crashing the whole evaluation as the original script would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.plans import (
    attraction_items,
    extract_before_parenthesis,
    extract_from_to,
    filled,
    flight_number,
    name_and_city,
    transportation_kind,
)
from coevo.envs.travelplanner.queries import Query
from coevo.envs.travelplanner.records import Accommodation, Attraction, Restaurant

CheckResult = tuple[bool | None, str | None]
Day = Mapping[str, Any]

NOT_NEEDED = "You don't need to fill in the information for this or later days."

#: Official keys, in the order the official `evaluation()` reports them, with the paper's names.
COMMONSENSE_CHECKS: dict[str, str] = {
    "is_reasonable_visiting_city": "Reasonable City Route",
    "is_valid_restaurants": "Diverse Restaurants",
    "is_valid_attractions": "Diverse Attractions",
    "is_valid_accommodation": "Minimum Nights Stay",
    "is_valid_transportation": "Non-conf. Transportation",
    "is_valid_information_in_current_city": "Within Current City",
    "is_valid_information_in_sandbox": "Within Sandbox",
    "is_not_absent": "Complete Information",
}


# --------------------------------------------------------------------------- sandbox lookups
def matching_restaurants(db: Sandbox, text: str) -> list[Restaurant]:
    name, city = name_and_city(text)
    return [r for r in db.restaurants(city) if name in r.name]


def matching_attractions(db: Sandbox, text: str) -> list[Attraction]:
    name, city = name_and_city(text)
    return [a for a in db.attractions(city) if name in a.name]


def matching_accommodations(db: Sandbox, text: str) -> list[Accommodation]:
    name, city = name_and_city(text)
    return [a for a in db.accommodations(city) if name in a.name]


def drive_cost(db: Sandbox, origin: str, destination: str, mode: str) -> int | None:
    """The official `run_for_evaluation` cost: None when there is no usable road."""
    drive = db.drive(extract_before_parenthesis(origin), extract_before_parenthesis(destination))
    if drive is None or drive.duration is None or drive.distance is None or drive.over_a_day:
        return None
    km = drive.kilometres
    assert km is not None
    if "driving" in mode:
        return int(km * 0.05)
    if mode == "taxi":
        return int(km)
    return None


def _days(query: Query, plan: Sequence[Day]) -> Sequence[Day]:
    return plan[: min(query.days, len(plan))]


def _route_cities(current_city: str) -> tuple[str, str]:
    origin, destination = extract_from_to(current_city)
    if origin is None or destination is None:
        raise ValueError(f"cannot read 'from A to B' in {current_city!r}")
    return extract_before_parenthesis(origin), extract_before_parenthesis(destination)


# --------------------------------------------------------------------------- the checks
def is_valid_city_sequence(cities: Sequence[str]) -> bool:
    """Each city in the middle stays at least twice in a row and is never left and re-entered."""
    if len(cities) < 3:
        return False
    visited: set[str] = set()
    i = 0
    while i < len(cities):
        city = cities[i]
        if city in visited and i != 0 and i != len(cities) - 1:
            return False
        count = 0
        while i < len(cities) and cities[i] == city:
            count += 1
            i += 1
        if count == 1 and 0 < i - 1 < len(cities) - 1:
            return False
        visited.add(city)
    return True


def is_reasonable_visiting_city(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    cities: list[str] = []
    for i, day in enumerate(_days(query, plan)):
        value = day["current_city"]
        if "from" in value:
            origin, destination = _route_cities(value)
            if i == 0 and origin != query.org:
                return False, f"The first day's city should be {query.org}."
            cities += [origin, destination]
        else:
            cities.append(extract_before_parenthesis(value))
    if not cities or cities[0] != cities[-1]:
        return False, "The trip should be a closed circle."
    if not is_valid_city_sequence(cities):
        return False, "The city sequence is invalid."
    for index, city in enumerate(cities):
        if city not in db.city_state:
            return False, f"{city} is not a valid city."
        if index not in (0, len(cities) - 1) and query.days > 3 and db.city_state[city] != query.dest:
            return False, f"{city} is not in {query.dest}."
    return True, None


def is_valid_restaurants(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    seen: list[Any] = []
    for i, day in enumerate(_days(query, plan)):
        for meal in ("breakfast", "lunch", "dinner"):
            if meal in day and filled(day[meal]):
                if day[meal] in seen:
                    detail = f" {day[meal]}" if meal == "lunch" else ""
                    return False, f"The restaurant in day {i + 1} {meal}{detail} is repeated."
                seen.append(day[meal])
    return True, None


def is_valid_attractions(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    seen: list[str] = []
    for i, day in enumerate(_days(query, plan)):
        if "attraction" in day and filled(day["attraction"]):
            for attraction in attraction_items(day["attraction"]):
                if attraction in seen:
                    return False, f"The attraction '{attraction}' in day {i + 1} is repeated."
                seen.append(attraction)
    return True, None


def is_valid_accommodation(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    stays: list[Any] = []
    for day in _days(query, plan):
        if "accommodation" not in day:
            return False, "No Accommodation Info."
        stays.append(day["accommodation"])
    for value, nights in _runs(stays):
        if value in ("-", ""):
            continue
        found = matching_accommodations(db, value)
        if len(found) == 1 and nights < found[0].minimum_nights:
            return False, f"The accommodation {value} do not obey the minumum nights rule."
    return True, None


def _runs(values: Sequence[Any]) -> list[tuple[Any, int]]:
    """Consecutive equal values with their counts: [a, a, b] -> [(a, 2), (b, 1)]."""
    runs: list[tuple[Any, int]] = []
    for value in values:
        if runs and runs[-1][0] == value:
            runs[-1] = (value, runs[-1][1] + 1)
        else:
            runs.append((value, 1))
    return runs


def is_valid_transportation(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    first = plan[0]["transportation"]
    if not filled(first):
        return False, "The transportation in day 1 should not be empty."
    kinds = [transportation_kind(first)]
    for day in _days(query, plan):
        if "transportation" in day and filled(day["transportation"]):
            kinds.append(transportation_kind(day["transportation"]))
    if ("Self-driving" in kinds and "Flight" in kinds) or ("Taxi" in kinds and "Self-driving" in kinds):
        return False, "The transportation is conflicting."
    return True, None


def is_valid_information_in_current_city(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    for i, day in enumerate(_days(query, plan)):
        current = day["current_city"]
        # A travel day gives two cities; otherwise the official code keeps the city *string*,
        # so the loops below walk its characters.
        cities: Sequence[str] = (
            list(_route_cities(current)) if "from" in current else extract_before_parenthesis(current)
        )
        if "transportation" in day and filled(day["transportation"]):
            for city in cities:
                if city not in day["transportation"]:
                    return False, f"The transportation in day {i + 1} is invalid city choice."
        for meal in ("breakfast", "lunch", "dinner"):
            if meal in day and filled(day[meal]) and not any(city in day[meal] for city in cities):
                return False, f"The {meal} in day {i + 1} is invalid city choice."
        if "attraction" in day and filled(day["attraction"]):
            for attraction in attraction_items(day["attraction"]):
                if not any(city in attraction for city in cities):
                    return False, f"The attraction in day {i + 1} is invalid city choice."
        if "accommodation" in day and filled(day["accommodation"]):
            if cities[-1] not in day["accommodation"]:
                return False, f"The accommodation in day {i + 1} is invalid city choice."
    return True, None


def is_valid_information_in_sandbox(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    for i, day in enumerate(_days(query, plan)):
        value = day["transportation"]
        if filled(value):
            origin, destination = extract_from_to(value)
            if origin is None or destination is None:
                origin, destination = extract_from_to(day["current_city"])
            if "flight number" in value.lower():
                if origin is None or destination is None:
                    return False, f"The transportation {value} in day {i + 1} can not be parsed."
                origin, destination = extract_before_parenthesis(origin), extract_before_parenthesis(destination)
                number = flight_number(value)
                if not any(f.origin == origin and f.destination == destination for f in db.flights_numbered(number)):
                    return False, f"The flight number in day {i + 1} is invalid in the sandbox."
            elif "self-driving" in value.lower() or "taxi" in value.lower():
                if origin is None or destination is None:
                    origin, destination = "-", "-"
                mode = "self-driving" if "self-driving" in value.lower() else "taxi"
                if drive_cost(db, origin, destination, mode) is None:
                    return False, f"The {mode} in day {i + 1} is invalid in the sandbox."
        for meal in ("breakfast", "lunch", "dinner"):
            if meal in day and filled(day[meal]) and not matching_restaurants(db, day[meal]):
                return False, f"The {meal} in day {i + 1} is invalid in the sandbox."
        if "attraction" in day and filled(day["attraction"]):
            for attraction in attraction_items(day["attraction"]):
                if not matching_attractions(db, attraction):
                    return False, f"The attraction {attraction} in day {i + 1} is invalid in the sandbox."
        if "accommodation" in day and filled(day["accommodation"]):
            if not matching_accommodations(db, day["accommodation"]):
                return False, f"The accommodation in day {i + 1} is invalid in the sandbox."
    return True, None


def _valid_days(query: Query, plan: Sequence[Day]) -> bool:
    count = sum(1 for day in _days(query, plan) if day != {} and day["current_city"] != NOT_NEEDED)
    return count == query.days


def _valid_city_number(query: Query, plan: Sequence[Day]) -> bool:
    cities: set[str] = set()
    for i, day in enumerate(_days(query, plan)):
        value = day["current_city"]
        if "from" in value:
            origin, destination = _route_cities(value)
            if i == 0 and origin != query.org:
                return False
            cities.update((origin, destination))
        else:
            cities.add(extract_before_parenthesis(value))
    cities.discard(query.org)
    return len(cities) == query.visiting_city_number


def is_not_absent(query: Query, plan: Sequence[Day], db: Sandbox) -> CheckResult:
    if not _valid_days(query, plan):
        return False, "Invalid Days"
    if not _valid_city_number(query, plan):
        return False, "Invalid City Number"
    given = 0
    for i, day in enumerate(_days(query, plan)):
        for key, label in (
            ("transportation", "Transportation"),
            ("breakfast", "Breakfast"),
            ("lunch", "Lunch"),
            ("dinner", "Dinner"),
            ("attraction", "Attraction"),
            ("accommodation", "Accommodation"),
        ):
            if key not in day:
                return False, f"No {label} Info."
        current = day["current_city"]
        if ("from " in current or "to " in current) and day["transportation"] in ("", "-"):
            return False, f"No transportation in day {i + 1} is not allowed."
        if "from " not in current and " to " not in current and day["attraction"] in ("", "-"):
            return False, f"No attaction in day {i + 1} is not allowed."
        if i != query.days - 1 and day["accommodation"] in ("", "-"):
            return False, f"No accommodation in day {i + 1} is not allowed."
        if (
            day["breakfast"] in ("", "-") or day["lunch"] in ("", "-") or day["dinner"] in ("", "-")
        ) and "from " not in current:
            return False, f"No meal in day {i + 1} is not allowed."
        given += sum(1 for value in day.values() if filled(value))
    if given / (6 * query.days) < 0.5:
        return False, "The absent information is more than 50%."
    return True, None


Check = Callable[[Query, Sequence[Day], Sandbox], CheckResult]

CHECKS: dict[str, Check] = {
    "is_reasonable_visiting_city": is_reasonable_visiting_city,
    "is_valid_restaurants": is_valid_restaurants,
    "is_valid_attractions": is_valid_attractions,
    "is_valid_accommodation": is_valid_accommodation,
    "is_valid_transportation": is_valid_transportation,
    "is_valid_information_in_current_city": is_valid_information_in_current_city,
    "is_valid_information_in_sandbox": is_valid_information_in_sandbox,
    "is_not_absent": is_not_absent,
}


def run_checks(checks: Mapping[str, Check], query: Query, plan: Sequence[Day], db: Sandbox) -> dict[str, CheckResult]:
    """Every check's result by key; a check the plan breaks (missing key, unparsable field) fails
    with why instead of raising, so one malformed day cannot hide the other verdicts."""
    results: dict[str, CheckResult] = {}
    for key, check in checks.items():
        try:
            results[key] = check(query, plan, db)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            results[key] = False, f"The plan cannot be evaluated: {type(exc).__name__}: {exc}"
    return results


def commonsense_evaluation(query: Query, plan: Sequence[Day], db: Sandbox) -> dict[str, CheckResult]:
    """All eight checks."""
    return run_checks(CHECKS, query, plan, db)
