"""Immutable rows of the sandbox, as the tools and the evaluator see them.

Each record type carries `COLUMNS`, the official header of its CSV file in field order; the
database returns these tuples (cached, shared by every session) and the tools render them as
tables under those headers. The fields live on a private NamedTuple base and `COLUMNS` on the
public subclass: a class attribute in a NamedTuple's own body is a field to type checkers.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple


class _FlightFields(NamedTuple):
    flight_number: str
    price: int
    dep_time: str
    arr_time: str
    elapsed: str
    flight_date: str
    origin: str
    destination: str
    distance: float


class Flight(_FlightFields):
    __slots__ = ()

    COLUMNS: ClassVar[tuple[str, ...]] = (
        "Flight Number",
        "Price",
        "DepTime",
        "ArrTime",
        "ActualElapsedTime",
        "FlightDate",
        "OriginCityName",
        "DestCityName",
        "Distance",
    )


class _AccommodationFields(NamedTuple):
    name: str
    price: float
    room_type: str
    house_rules: str
    minimum_nights: float
    maximum_occupancy: int
    review_rate: float
    city: str


class Accommodation(_AccommodationFields):
    __slots__ = ()

    COLUMNS: ClassVar[tuple[str, ...]] = (
        "NAME",
        "price",
        "room type",
        "house_rules",
        "minimum nights",
        "maximum occupancy",
        "review rate number",
        "city",
    )


class _RestaurantFields(NamedTuple):
    name: str
    average_cost: int
    cuisines: str
    rating: float
    city: str


class Restaurant(_RestaurantFields):
    __slots__ = ()

    COLUMNS: ClassVar[tuple[str, ...]] = ("Name", "Average Cost", "Cuisines", "Aggregate Rating", "City")


class _AttractionFields(NamedTuple):
    name: str
    latitude: float
    longitude: float
    address: str
    phone: str
    website: str
    city: str


class Attraction(_AttractionFields):
    __slots__ = ()

    COLUMNS: ClassVar[tuple[str, ...]] = (
        "Name",
        "Latitude",
        "Longitude",
        "Address",
        "Phone",
        "Website",
        "City",
    )


class _DriveFields(NamedTuple):
    origin: str
    destination: str
    duration: str | None
    distance: str | None


class Drive(_DriveFields):
    """A row of distance.csv; `duration`/`distance` are None when the row is empty."""

    __slots__ = ()

    COLUMNS: ClassVar[tuple[str, ...]] = ("origin", "destination", "duration", "distance")

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
