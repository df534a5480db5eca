"""The natural-language request of a generated query, varied by the query's own random stream.

Every fact the evaluator checks (origin, destination, days, dates, group size, budget, each
local constraint) is stated; only the wording varies.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}

_ONE_CITY = (
    "Please create a travel plan for {who} departing from {org} and heading to {dest} for {days} days, "
    "from {start} to {end}, 2022, with a budget of {budget}.",
    "Could you plan a {days}-day trip for {who} from {org} to {dest}, running from {start} to {end}, 2022? "
    "The budget is {budget}.",
    "I need a {days}-day itinerary for {who}, leaving {org} for {dest} on {start} and returning on {end}, 2022. "
    "Please keep it within {budget}.",
    "Help me put together a trip from {org} to {dest} for {who}: {days} days from {start} to {end}, 2022, "
    "on a budget of {budget}.",
)
_MANY_CITIES = (
    "Please plan a {days}-day trip for {who} from {org} that covers {count} cities in {dest}, "
    "from {start} to {end}, 2022, within a budget of {budget}.",
    "Could you design a {days}-day journey for {who}, starting in {org} and touring {count} cities in {dest} "
    "between {start} and {end}, 2022? We can spend up to {budget}.",
    "I'd like an itinerary for {who} leaving {org} to visit {count} different cities in {dest} over {days} days, "
    "{start} to {end}, 2022, with {budget} to spend in total.",
    "Put together a {days}-day tour of {count} cities in {dest} for {who}, departing from {org} on {start} "
    "and coming back on {end}, 2022. The total budget is {budget}.",
)
_HOUSE_RULE = {
    "parties": "We plan to host a small party, so the accommodations must allow parties.",
    "smoking": "Some of us smoke, so the places we stay must allow smoking.",
    "children under 10": "We are bringing children under 10, so the accommodations must welcome them.",
    "visitors": "We'd like to have visitors over, so the accommodations must allow visitors.",
    "pets": "We are traveling with our pets, so we need pet-friendly accommodations.",
}
_ROOM_TYPE = {
    "shared room": "A shared room is what we want for our stays.",
    "not shared room": "We don't want to share a room with strangers, so no shared rooms please.",
    "private room": "We'd like private rooms for our stays.",
    "entire room": "We'd like an entire home or apartment to ourselves.",
}
_TRANSPORTATION = {
    "no flight": "We'd rather not fly, so please leave flights out of the plan.",
    "no self-driving": "We won't be driving ourselves, so please avoid self-driving.",
}


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def spoken_date(iso: str) -> str:
    """"2022-03-13" -> "March 13th"."""
    d = date.fromisoformat(iso)
    return f"{d.strftime('%B')} {_ordinal(d.day)}"


def _group(people: int, rng: random.Random) -> str:
    if people == 1:
        return rng.choice(("one person", "me", "a solo traveler"))
    return rng.choice((f"{people} people", f"a group of {_NUMBER_WORDS.get(people, people)}"))


def _join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def query_text(fields: Mapping[str, Any], rng: random.Random) -> str:
    """The request for a query's fields (org, dest, days, date, people_number, budget, ...)."""
    templates = _ONE_CITY if fields["visiting_city_number"] == 1 else _MANY_CITIES
    text = rng.choice(templates).format(
        who=_group(fields["people_number"], rng),
        org=fields["org"],
        dest=fields["dest"],
        days=fields["days"],
        count=_NUMBER_WORDS.get(fields["visiting_city_number"], fields["visiting_city_number"]),
        start=spoken_date(fields["date"][0]),
        end=spoken_date(fields["date"][-1]),
        budget=f"${fields['budget']:,}",
    )
    constraint = fields["local_constraint"]
    extra: list[str] = []
    if constraint.get("house rule"):
        extra.append(_HOUSE_RULE[constraint["house rule"]])
    if constraint.get("room type"):
        extra.append(_ROOM_TYPE[constraint["room type"]])
    if constraint.get("cuisine"):
        extra.append(f"During the trip we'd like to try {_join(list(constraint['cuisine']))} cuisines.")
    if constraint.get("transportation"):
        extra.append(_TRANSPORTATION[constraint["transportation"]])
    rng.shuffle(extra)
    return " ".join([text, *extra])
