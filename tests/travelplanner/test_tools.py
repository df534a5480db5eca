"""The tools' answers and the official messages, on the tiny sandbox."""

from __future__ import annotations

from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.tools import (
    accommodation_search,
    attraction_search,
    city_search,
    distance_matrix,
    flight_search,
    restaurant_search,
)

CITIES = "['Springfield', 'Rivertown', 'Lakeside', 'Hillview', 'Portview', 'Shelbyville']"


def test_flight_search(tiny: Sandbox) -> None:
    found = flight_search(tiny, "Springfield, Rivertown, 2022-03-01")
    lines = found.observation.splitlines()
    assert lines[0].split() == [
        "Flight",
        "Number",
        "Price",
        "DepTime",
        "ArrTime",
        "ActualElapsedTime",
        "FlightDate",
        "OriginCityName",
        "DestCityName",
        "Distance",
    ]
    assert [line.split()[0] for line in lines[1:]] == ["F0000001", "F0000002"]
    assert found.data == found.observation
    none = flight_search(tiny, "Springfield, Rivertown, 2022-03-02")
    assert none.observation == none.data == "There is no flight from Springfield to Rivertown on 2022-03-02."


def test_flight_search_argument_errors(tiny: Sandbox) -> None:
    assert (
        flight_search(tiny, "Springfield, Rivertown, March 1").observation
        == "'March 1' is not in the format YYYY-MM-DD"
    )
    assert (
        flight_search(tiny, "Springfield, Gotham, 2022-03-01").observation == f"Gotham is not valid city in {CITIES}."
    )
    bad = flight_search(tiny, "Springfield to Rivertown")
    assert bad.observation == "Illegal Flight Search. Please try again." and bad.data is None and not bad.ok


def test_distance_matrix_costs_and_messages(tiny: Sandbox) -> None:
    assert distance_matrix(tiny, "Springfield, Rivertown, self-driving").observation == (
        "self-driving, from Springfield to Rivertown, duration: 7 hours 10 mins, distance: 642 km, cost: 32"
    )
    assert distance_matrix(tiny, "Springfield, Rivertown, taxi").observation == (
        "taxi, from Springfield to Rivertown, duration: 7 hours 10 mins, distance: 642 km, cost: 642"
    )
    assert distance_matrix(tiny, "Rivertown, Lakeside, taxi").observation.endswith("distance: 98.6 km, cost: 98")
    assert distance_matrix(tiny, "Lakeside, Springfield, self-driving").observation.endswith(
        "distance: 1,010 km, cost: 50"
    )
    assert distance_matrix(tiny, "Springfield, Portview, taxi").observation == "No valid information."  # blank row
    assert distance_matrix(tiny, "Portview, Springfield, taxi").observation == "No valid information."  # over a day
    assert distance_matrix(tiny, "Hillview, Lakeside, taxi").observation == (
        "taxi, from Hillview to Lakeside, no valid information."
    )
    assert distance_matrix(tiny, "Springfield(Illinois), Rivertown(Ohio), walking").observation.endswith("cost: None")
    assert (
        distance_matrix(tiny, "Springfield, Rivertown").observation == "Illegal GoogleDistanceMatrix. Please try again."
    )


def test_city_tools(tiny: Sandbox) -> None:
    stays = accommodation_search(tiny, "Rivertown")
    assert stays.observation == stays.data.strip() and stays.observation.startswith("NAME")
    assert stays.data.startswith(" ")  # the notebook keeps pandas' unstripped layout
    assert "Grand Manor" in stays.observation and "Lakeside Cabin" not in stays.observation
    assert restaurant_search(tiny, "Lakeside").observation.splitlines()[1].split()[:2] == ["Lake", "Cafe"]
    assert attraction_search(tiny, "Springfield").observation.splitlines()[1].split()[0] == "Capitol"
    # The official accommodation tool answers "attraction" for a city without listings.
    assert accommodation_search(tiny, "Hillview").observation == "There is no attraction in this city."
    assert restaurant_search(tiny, "Hillview").observation == "There is no restaurant in this city."
    assert attraction_search(tiny, "Hillview").observation == "There is no attraction in this city."
    assert restaurant_search(tiny, "Gotham").observation == f"Gotham is not valid city in {CITIES}."


def test_city_search(tiny: Sandbox) -> None:
    found = city_search(tiny, "Ohio")
    assert found.observation == "['Rivertown', 'Lakeside', 'Hillview', 'Portview']" and found.data is None
    assert city_search(tiny, "Atlantis").observation == "Invalid State"
