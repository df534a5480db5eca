"""Immutable rows of the sandbox, as the tools and the evaluator see them.

Each record type carries `COLUMNS` (a plain class attribute, so not a tuple field), the official
header of its CSV file in field order; the
database returns these tuples (cached, shared by every session) and the tools render them as
tables under those headers.
"""

from __future__ import annotations

from typing import NamedTuple


class Flight(NamedTuple):
    flight_number: str
    price: int
    dep_time: str
    arr_time: str
    elapsed: str
    flight_date: str
    origin: str
    destination: str
    distance: float

    COLUMNS = (
        "Flight Number", "Price", "DepTime", "ArrTime", "ActualElapsedTime", "FlightDate",
        "OriginCityName", "DestCityName", "Distance",
    )


class Accommodation(NamedTuple):
    name: str
    price: float
    room_type: str
    house_rules: str
    minimum_nights: float
    maximum_occupancy: int
    review_rate: float
    city: str

    COLUMNS = (
        "NAME", "price", "room type", "house_rules", "minimum nights", "maximum occupancy",
        "review rate number", "city",
    )


class Restaurant(NamedTuple):
    name: str
    average_cost: int
    cuisines: str
    rating: float
    city: str

    COLUMNS = ("Name", "Average Cost", "Cuisines", "Aggregate Rating", "City")


class Attraction(NamedTuple):
    name: str
    latitude: float
    longitude: float
    address: str
    phone: str
    website: str
    city: str

    COLUMNS = (
        "Name", "Latitude", "Longitude", "Address", "Phone", "Website", "City",
    )


class Drive(NamedTuple):
    """A row of distance.csv; `duration`/`distance` are None when the row is empty."""

    origin: str
    destination: str
    duration: str | None
    distance: str | None

    COLUMNS = ("origin", "destination", "duration", "distance")

    @property
    def kilometres(self) -> float | None:
        """The distance as a number ("1,144 km" -> 1144.0), None when unknown."""
        if not self.distance:
            return None
        return float(self.distance.replace("km", "").replace(",", "").strip())

    @property
    def over_a_day(self) -> bool:
        """The official tool and evaluator treat drives of a day or more as unavailable."""
        return self.duration is not None and "day" in self.duration
