"""The eight commonsense checks, each with plans that pass and plans that fail, on the tiny sandbox."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from coevo.envs.travelplanner.commonsense import (
    COMMONSENSE_CHECKS,
    commonsense_evaluation,
    is_not_absent,
    is_reasonable_visiting_city,
    is_valid_accommodation,
    is_valid_attractions,
    is_valid_city_sequence,
    is_valid_information_in_current_city,
    is_valid_information_in_sandbox,
    is_valid_restaurants,
    is_valid_transportation,
)
from coevo.envs.travelplanner.database import Sandbox
from tests.travelplanner.tiny import plan, query

SELF_DRIVE_OUT = "Self-driving, from Springfield to Rivertown, duration: 7 hours 10 mins, distance: 642 km, cost: 32"
SELF_DRIVE_BACK = "Self-driving, from Rivertown to Springfield, duration: 7 hours 8 mins, distance: 640 km, cost: 32"
FLIGHT_UNKNOWN = "Flight Number: F0000009, from Springfield to Rivertown, Departure Time: 08:00, Arrival Time: 09:30"
TAXI_BACK = "Taxi, from Rivertown to Springfield, duration: 7 hours 8 mins, distance: 640 km, cost: 640"


def edited(**days: dict[str, Any]) -> list[dict[str, Any]]:
    """The passing plan with some fields replaced: edited(d2={"lunch": "..."})."""
    p = copy.deepcopy(plan())
    for key, fields in days.items():
        p[int(key[1:]) - 1].update(fields)
    return p


def test_the_reference_plan_passes_every_check(tiny: Sandbox) -> None:
    results = commonsense_evaluation(query(), plan(), tiny)
    assert list(results) == list(COMMONSENSE_CHECKS)
    assert all(ok is True and message is None for ok, message in results.values())


# ---------------------------------------------------------------- reasonable city route
def test_city_route_must_be_a_closed_circle(tiny: Sandbox) -> None:
    p = edited(d3={"current_city": "from Rivertown to Lakeside"})
    assert is_reasonable_visiting_city(query(), p, tiny) == (False, "The trip should be a closed circle.")


def test_city_route_must_start_at_the_origin(tiny: Sandbox) -> None:
    p = edited(d1={"current_city": "from Lakeside to Rivertown"})
    assert is_reasonable_visiting_city(query(), p, tiny) == (False, "The first day's city should be Springfield.")


def test_city_route_rejects_a_city_visited_for_a_moment(tiny: Sandbox) -> None:
    p = edited(d2={"current_city": "Lakeside"}, d3={"current_city": "from Lakeside to Springfield"})
    assert is_reasonable_visiting_city(query(), p, tiny) == (False, "The city sequence is invalid.")
    assert is_valid_city_sequence(["A", "B", "B", "C", "C", "A"])
    assert not is_valid_city_sequence(["A", "B", "C", "C", "A"])
    assert not is_valid_city_sequence(["A", "B", "B", "C", "C", "B", "B", "A"])
    assert not is_valid_city_sequence(["A", "A"])


def test_city_route_cities_must_exist_and_lie_in_the_state(tiny: Sandbox) -> None:
    p = edited(
        d1={"current_city": "from Springfield to Atlantis"},
        d2={"current_city": "Atlantis"},
        d3={"current_city": "from Atlantis to Springfield"},
    )
    assert is_reasonable_visiting_city(query(), p, tiny) == (False, "Atlantis is not a valid city.")
    five_days = query(days=5, dest="Ohio", visiting_city_number=2, date=[f"2022-03-0{d}" for d in range(1, 6)])
    route = [
        "from Springfield to Rivertown",
        "Rivertown",
        "from Rivertown to Shelbyville",
        "Shelbyville",
        "from Shelbyville to Springfield",
    ]
    p5 = [{"days": i + 1, "current_city": c} for i, c in enumerate(route)]
    assert is_reasonable_visiting_city(five_days, p5, tiny) == (False, "Shelbyville is not in Ohio.")
    p5[2]["current_city"], p5[3]["current_city"], p5[4]["current_city"] = (
        "from Rivertown to Lakeside",
        "Lakeside",
        "from Lakeside to Springfield",
    )
    assert is_reasonable_visiting_city(five_days, p5, tiny) == (True, None)


# ---------------------------------------------------------------- diverse restaurants / attractions
def test_restaurants_must_not_repeat(tiny: Sandbox) -> None:
    p = edited(d2={"lunch": "Blue Spoon, Rivertown"})
    assert is_valid_restaurants(query(), p, tiny) == (
        False,
        "The restaurant in day 2 lunch Blue Spoon, Rivertown is repeated.",
    )
    p = edited(d2={"dinner": "Red Fork, Rivertown"})
    assert is_valid_restaurants(query(), p, tiny) == (False, "The restaurant in day 2 dinner is repeated.")


def test_attractions_must_not_repeat(tiny: Sandbox) -> None:
    p = edited(d2={"attraction": "Old Mill Park, Rivertown;River Museum, Rivertown;"})
    assert is_valid_attractions(query(), p, tiny) == (
        False,
        "The attraction 'River Museum, Rivertown' in day 2 is repeated.",
    )


def test_an_attraction_after_the_last_semicolon_is_not_read(tiny: Sandbox) -> None:
    # Official rule: split(';')[:-1]; the repeat hides in the unterminated last item.
    p = edited(d2={"attraction": "Old Mill Park, Rivertown;River Museum, Rivertown"})
    assert is_valid_attractions(query(), p, tiny) == (True, None)
    assert is_valid_information_in_sandbox(query(), edited(d2={"attraction": "Nowhere Land, Rivertown"}), tiny)[0]


# ---------------------------------------------------------------- minimum nights
def test_minimum_nights_are_enforced(tiny: Sandbox) -> None:
    stay = {"accommodation": "Grand Manor, Rivertown"}  # minimum 5 nights, booked for 2
    assert is_valid_accommodation(query(), edited(d1=stay, d2=stay), tiny) == (
        False,
        "The accommodation Grand Manor, Rivertown do not obey the minumum nights rule.",
    )
    # Sunny Loft wants 2 nights: one night breaks it.
    one_night = edited(d2={"accommodation": "Quiet Private Room, Rivertown"})
    assert is_valid_accommodation(query(), one_night, tiny)[0] is False
    assert is_valid_accommodation(query(), plan(), tiny) == (True, None)


def test_minimum_nights_need_a_single_matching_listing(tiny: Sandbox) -> None:
    # "o" is a substring of several names, so the official rule cannot tell which listing it is.
    ambiguous = {"accommodation": "o, Rivertown"}
    assert is_valid_accommodation(query(), edited(d1=ambiguous, d2={"accommodation": "-"}), tiny) == (True, None)
    assert is_valid_accommodation(query(), [{"days": 1}], tiny) == (False, "No Accommodation Info.")


# ---------------------------------------------------------------- non-conflicting transportation
@pytest.mark.parametrize(
    ("day1", "day3", "ok"),
    [
        ("flight", TAXI_BACK, True),
        ("flight", SELF_DRIVE_BACK, False),
        (SELF_DRIVE_OUT, TAXI_BACK, False),
        (SELF_DRIVE_OUT, SELF_DRIVE_BACK, True),
    ],
)
def test_self_driving_never_mixes_with_flights_or_taxis(tiny: Sandbox, day1: str, day3: str, ok: bool) -> None:
    p = edited(d3={"transportation": day3})
    if day1 != "flight":
        p[0]["transportation"] = day1
    expected = (True, None) if ok else (False, "The transportation is conflicting.")
    assert is_valid_transportation(query(), p, tiny) == expected


def test_first_day_needs_transportation(tiny: Sandbox) -> None:
    p = edited(d1={"transportation": "-"})
    assert is_valid_transportation(query(), p, tiny) == (False, "The transportation in day 1 should not be empty.")


# ---------------------------------------------------------------- within current city
def test_meals_sights_and_stays_belong_to_the_day_cities(tiny: Sandbox) -> None:
    q = query()
    assert is_valid_information_in_current_city(q, edited(d1={"dinner": "Lake Cafe, Lakeside"}), tiny) == (
        False,
        "The dinner in day 1 is invalid city choice.",
    )
    assert is_valid_information_in_current_city(q, edited(d1={"accommodation": "Lakeside Cabin, Lakeside"}), tiny) == (
        False,
        "The accommodation in day 1 is invalid city choice.",
    )
    assert is_valid_information_in_current_city(q, edited(d1={"attraction": "Lake Pier, Lakeside;"}), tiny) == (
        False,
        "The attraction in day 1 is invalid city choice.",
    )
    assert is_valid_information_in_current_city(
        q, edited(d1={"current_city": "from Springfield to Lakeside"}), tiny
    ) == (False, "The transportation in day 1 is invalid city choice.")
    # Breakfast at home on the day you leave is within the day's cities.
    assert is_valid_information_in_current_city(q, edited(d1={"breakfast": "Home Diner, Springfield"}), tiny) == (
        True,
        None,
    )


def test_on_a_stay_day_the_city_is_compared_letter_by_letter(tiny: Sandbox) -> None:
    # The official code iterates over the city *string* on non-travel days, so a restaurant of
    # another city passes when any letter of "Rivertown" appears in it.
    assert is_valid_information_in_current_city(query(), edited(d2={"dinner": "Lake Cafe, Lakeside"}), tiny) == (
        True,
        None,
    )
    assert is_valid_information_in_current_city(query(), edited(d2={"dinner": "XYZ"}), tiny)[0] is False


# ---------------------------------------------------------------- within sandbox
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"d1": {"transportation": FLIGHT_UNKNOWN}}, "The flight number in day 1 is invalid in the sandbox."),
        (
            {"d1": {"transportation": "Flight Number: F0000004, from Springfield to Rivertown, Departure Time: 08:00"}},
            "The flight number in day 1 is invalid in the sandbox.",
        ),
        ({"d2": {"lunch": "Ghost Kitchen, Rivertown"}}, "The lunch in day 2 is invalid in the sandbox."),
        ({"d2": {"lunch": "Lake Cafe, Rivertown"}}, "The lunch in day 2 is invalid in the sandbox."),
        (
            {"d2": {"attraction": "Old Mill Park, Rivertown;Space Needle, Rivertown;"}},
            "The attraction Space Needle, Rivertown in day 2 is invalid in the sandbox.",
        ),
        ({"d2": {"accommodation": "Hilton, Rivertown"}}, "The accommodation in day 2 is invalid in the sandbox."),
    ],
)
def test_everything_must_exist_in_the_sandbox(tiny: Sandbox, change: dict[str, Any], message: str) -> None:
    assert is_valid_information_in_sandbox(query(), edited(**change), tiny) == (False, message)


def test_drives_must_have_a_road_of_less_than_a_day(tiny: Sandbox) -> None:
    q = query(dest="Portview")
    blank = [
        {
            "days": 1,
            "current_city": "from Springfield to Portview",
            "transportation": "Self-driving, from Springfield to Portview",
        }
    ]
    assert is_valid_information_in_sandbox(q, blank, tiny) == (
        False,
        "The self-driving in day 1 is invalid in the sandbox.",
    )
    too_long = [{"days": 1, "current_city": "from Portview to Springfield", "transportation": "Taxi"}]
    assert is_valid_information_in_sandbox(q, too_long, tiny) == (False, "The taxi in day 1 is invalid in the sandbox.")
    fine = edited(d1={"transportation": "Taxi, from Springfield to Rivertown"})
    assert is_valid_information_in_sandbox(query(), fine, tiny) == (True, None)


# ---------------------------------------------------------------- complete information
@pytest.mark.parametrize(
    ("plan_days", "message"),
    [
        (lambda p: p[:2], "Invalid Days"),
        (
            lambda p: [
                p[0],
                {**p[1], "current_city": "Lakeside"},
                {**p[2], "current_city": "from Lakeside to Springfield"},
            ],
            "Invalid City Number",
        ),
        (lambda p: [p[0], {k: v for k, v in p[1].items() if k != "dinner"}, p[2]], "No Dinner Info."),
        (lambda p: [{**p[0], "transportation": "-"}, p[1], p[2]], "No transportation in day 1 is not allowed."),
        (lambda p: [p[0], {**p[1], "attraction": "-"}, p[2]], "No attaction in day 2 is not allowed."),
        (lambda p: [{**p[0], "accommodation": ""}, p[1], p[2]], "No accommodation in day 1 is not allowed."),
        (lambda p: [p[0], {**p[1], "lunch": "-"}, p[2]], "No meal in day 2 is not allowed."),
    ],
)
def test_complete_information(tiny: Sandbox, plan_days: Any, message: str) -> None:
    assert is_not_absent(query(), plan_days(plan()), tiny) == (False, message)


def test_travel_days_need_no_meals_and_the_last_day_no_stay(tiny: Sandbox) -> None:
    p = edited(d1={"lunch": "-", "dinner": "-", "attraction": "-"})
    assert is_not_absent(query(), p, tiny) == (True, None)


def test_unreadable_fields_fail_instead_of_crashing(tiny: Sandbox) -> None:
    p = edited(d1={"current_city": "from Springfield"})
    results = commonsense_evaluation(query(), p, tiny)
    assert results["is_reasonable_visiting_city"][0] is False
    assert "cannot be evaluated" in results["is_reasonable_visiting_city"][1]
    broken = edited(d1={"transportation": "flight number F1"})
    assert commonsense_evaluation(query(), broken, tiny)["is_valid_information_in_sandbox"][0] is False
