"""The information-gathering tools, with the official arguments, validation and messages.

Arguments are split on ", " like the official agent does; cities are checked against the
city list ("X is not valid city in [...]."), dates against YYYY-MM-DD. A tool returns the text
the agent observes and the data NotebookWrite would store (tables are stored unstripped and
shown stripped, exactly as the official agent does; CitySearch stores nothing).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.plans import extract_before_parenthesis
from coevo.envs.travelplanner.records import Accommodation, Attraction, Flight, Restaurant
from coevo.envs.travelplanner.tables import render_table

INVALID_ACTION = (
    "Invalid Action. Valid Actions are  FlightSearch[Departure City, Destination City, Date] / "
    "AccommodationSearch[City] /  RestaurantSearch[City] / NotebookWrite[Short Description] / "
    "AttractionSearch[City] / CitySearch[State] / GoogleDistanceMatrix[Origin, Destination, Mode] "
    "and Planner[Query]."
)
NULL_ACTION = (
    "No feedback from the environment due to the null action. Please make sure your action does "
    "not start with [Thought, Action, Observation]."
)

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

TOOL_NAMES = (
    "FlightSearch",
    "GoogleDistanceMatrix",
    "AccommodationSearch",
    "RestaurantSearch",
    "AttractionSearch",
    "CitySearch",
    "NotebookWrite",
    "Planner",
)


@dataclass(frozen=True)
class ToolResult:
    observation: str
    #: What becomes the "current data" a following NotebookWrite records; None keeps the old one.
    data: str | None
    ok: bool = True


class ArgumentError(ValueError):
    """An argument the official agent rejects with a specific message."""


def _check_city(db: Sandbox, city: str) -> None:
    if city not in db.city_state:
        raise ArgumentError(f"{city} is not valid city in {db.cities}.")


def _table(observation_strip: bool, columns: tuple[str, ...], rows: Sequence[Sequence[Any]], empty: str) -> ToolResult:
    if not rows:
        return ToolResult(empty, empty)
    text = render_table(columns, rows)
    return ToolResult(text.strip() if observation_strip else text, text)


def flight_search(db: Sandbox, argument: str) -> ToolResult:
    try:
        parts = argument.split(", ")
        origin, destination, day = parts[0], parts[1], parts[2]
        if not _DATE.match(day):
            return ToolResult(f"'{day}' is not in the format YYYY-MM-DD", None, ok=False)
        _check_city(db, origin)
        _check_city(db, destination)
    except ArgumentError as exc:
        return ToolResult(str(exc), None, ok=False)
    except IndexError:
        return ToolResult("Illegal Flight Search. Please try again.", None, ok=False)
    return _table(
        False,
        Flight.COLUMNS,
        db.flights(origin, destination, day),
        f"There is no flight from {origin} to {destination} on {day}.",
    )


def _city_tool(db: Sandbox, argument: str, kind: str) -> ToolResult:
    try:
        _check_city(db, argument)
    except ArgumentError as exc:
        return ToolResult(str(exc), None, ok=False)
    if kind == "accommodations":
        # The official accommodation tool really says "attraction" when a city has none.
        return _table(True, Accommodation.COLUMNS, db.accommodations(argument), "There is no attraction in this city.")
    if kind == "restaurants":
        return _table(True, Restaurant.COLUMNS, db.restaurants(argument), "There is no restaurant in this city.")
    return _table(True, Attraction.COLUMNS, db.attractions(argument), "There is no attraction in this city.")


def accommodation_search(db: Sandbox, argument: str) -> ToolResult:
    return _city_tool(db, argument, "accommodations")


def restaurant_search(db: Sandbox, argument: str) -> ToolResult:
    return _city_tool(db, argument, "restaurants")


def attraction_search(db: Sandbox, argument: str) -> ToolResult:
    return _city_tool(db, argument, "attractions")


def city_search(db: Sandbox, argument: str) -> ToolResult:
    """Cities of a state as a Python list literal; "Invalid State" otherwise. Stores nothing."""
    cities = db.state_cities.get(argument)
    if cities is None:
        return ToolResult("Invalid State", None, ok=False)
    return ToolResult(str(list(cities)), None)


def distance_text(db: Sandbox, origin: str, destination: str, mode: str) -> str:
    """The official GoogleDistanceMatrix answer for one pair and mode."""
    origin, destination = extract_before_parenthesis(origin), extract_before_parenthesis(destination)
    drive = db.drive(origin, destination)
    if drive is None:
        return f"{mode}, from {origin} to {destination}, no valid information."
    if drive.duration is None or drive.distance is None or drive.over_a_day:
        return "No valid information."
    km = drive.kilometres
    assert km is not None
    cost: int | None = None
    if "driving" in mode:
        cost = int(km * 0.05)
    elif mode == "taxi":
        cost = int(km)
    return (
        f"{mode}, from {origin} to {destination}, duration: {drive.duration}, distance: {drive.distance}, cost: {cost}"
    )


def distance_matrix(db: Sandbox, argument: str) -> ToolResult:
    parts = argument.split(", ")
    if len(parts) < 3:
        return ToolResult("Illegal GoogleDistanceMatrix. Please try again.", None, ok=False)
    text = distance_text(db, parts[0], parts[1], parts[2])
    return ToolResult(text, text)


SEARCH_TOOLS = {
    "FlightSearch": flight_search,
    "AccommodationSearch": accommodation_search,
    "RestaurantSearch": restaurant_search,
    "AttractionSearch": attraction_search,
    "CitySearch": city_search,
    "GoogleDistanceMatrix": distance_matrix,
}


def notebook_message(index: int) -> str:
    return f"The information has been recorded in Notebook, and its index is {index}."
