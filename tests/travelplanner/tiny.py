"""A hand-made sandbox small enough to reason about: every check is tested against known rows.

Springfield (Illinois) is home; Rivertown, Lakeside, Hillview and Portview are in Ohio;
Shelbyville is a second Illinois city.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import create_engine
from sqlalchemy.pool import StaticPool

from coevo.envs.travelplanner.database import Sandbox, fill
from coevo.envs.travelplanner.queries import Query
from coevo.envs.travelplanner.schema import (
    AccommodationRow,
    AttractionRow,
    CityRow,
    DistanceRow,
    FlightRow,
    RestaurantRow,
)


def _flight(
    number: str, origin: str, dest: str, day: str, price: int, dep: str = "08:00", arr: str = "09:30"
) -> dict[str, Any]:
    return {
        "Flight Number": number,
        "Price": price,
        "DepTime": dep,
        "ArrTime": arr,
        "ActualElapsedTime": "1 hours 30 minutes",
        "FlightDate": day,
        "OriginCityName": origin,
        "DestCityName": dest,
        "Distance": 400.0,
    }


def _stay(name: str, city: str, room: str, price: float, occupancy: int, nights: float, rules: str) -> dict[str, Any]:
    return {
        "NAME": name,
        "price": price,
        "room type": room,
        "house_rules": rules,
        "minimum nights": nights,
        "maximum occupancy": occupancy,
        "review rate number": 4.0,
        "city": city,
    }


def _food(name: str, city: str, cost: int, cuisines: str) -> dict[str, Any]:
    return {"Name": name, "Average Cost": cost, "Cuisines": cuisines, "Aggregate Rating": 4.1, "City": city}


def _sight(name: str, city: str) -> dict[str, Any]:
    return {
        "Name": name,
        "Latitude": 40.1234567,
        "Longitude": -83.7654321,
        "Address": f"1 Main St, {city}, OH 43001, USA",
        "Phone": "(555) 555-0100",
        "Website": "Unknown",
        "City": city,
    }


def _road(origin: str, dest: str, duration: str | None, distance: str | None) -> dict[str, Any]:
    return {"origin": origin, "destination": dest, "duration": duration, "distance": distance}


TABLES = {
    CityRow.__table__: [
        {"city": "Springfield", "state": "Illinois"},
        {"city": "Rivertown", "state": "Ohio"},
        {"city": "Lakeside", "state": "Ohio"},
        {"city": "Hillview", "state": "Ohio"},
        {"city": "Portview", "state": "Ohio"},
        {"city": "Shelbyville", "state": "Illinois"},
    ],
    FlightRow.__table__: [
        _flight("F0000001", "Springfield", "Rivertown", "2022-03-01", 100, "08:00", "09:30"),
        _flight("F0000002", "Springfield", "Rivertown", "2022-03-01", 150, "18:00", "19:30"),
        _flight("F0000003", "Rivertown", "Springfield", "2022-03-03", 120, "20:00", "21:30"),
        _flight("F0000004", "Lakeside", "Springfield", "2022-03-05", 90),
    ],
    DistanceRow.__table__: [
        _road("Springfield", "Rivertown", "7 hours 10 mins", "642 km"),
        _road("Rivertown", "Springfield", "7 hours 8 mins", "640 km"),
        _road("Rivertown", "Lakeside", "1 hour 5 mins", "98.6 km"),
        _road("Lakeside", "Springfield", "7 hours 30 mins", "1,010 km"),
        _road("Springfield", "Portview", None, None),
        _road("Portview", "Springfield", "1 day 2 hours", "2,500 km"),
    ],
    AccommodationRow.__table__: [
        _stay("Sunny Loft Downtown", "Rivertown", "Entire home/apt", 200.0, 4, 2.0, "No parties & No pets"),
        _stay("Quiet Private Room", "Rivertown", "Private room", 80.0, 2, 1.0, "No smoking"),
        _stay("Shared Bunk", "Rivertown", "Shared room", 40.0, 1, 1.0, "No visitors"),
        _stay("Grand Manor", "Rivertown", "Entire home/apt", 500.0, 8, 5.0, "No children under 10"),
        _stay("Lakeside Cabin", "Lakeside", "Entire home/apt", 150.0, 3, 1.0, "No smoking"),
    ],
    RestaurantRow.__table__: [
        _food("Blue Spoon", "Rivertown", 20, "American, Cafe"),
        _food("Red Fork", "Rivertown", 30, "Chinese, Italian"),
        _food("Green Bowl", "Rivertown", 15, "Mexican"),
        _food("Golden Grill", "Rivertown", 40, "Indian, French"),
        _food("Tea House", "Rivertown", 10, "Tea, Desserts"),
        _food("Home Diner", "Springfield", 12, "Chinese, American"),
        _food("Lake Cafe", "Lakeside", 25, "Mediterranean"),
        _food("Dock Diner", "Lakeside", 18, "American"),
    ],
    AttractionRow.__table__: [
        _sight("River Museum", "Rivertown"),
        _sight("Old Mill Park", "Rivertown"),
        _sight("City Zoo", "Rivertown"),
        _sight("Lake Pier", "Lakeside"),
        _sight("Capitol", "Springfield"),
    ],
}


def tiny_sandbox() -> Sandbox:
    engine = create_engine("sqlite://", connect_args={"check_same_thread": False}, poolclass=StaticPool)
    fill(engine, {"source": "test"}, TABLES)
    return Sandbox(engine, {"source": "test"})


def query(**changes: Any) -> Query:
    """Springfield -> Rivertown, 3 days, 2 people, budget 1100, no local constraint."""
    record: dict[str, Any] = {
        "org": "Springfield",
        "dest": "Rivertown",
        "days": 3,
        "visiting_city_number": 1,
        "date": ["2022-03-01", "2022-03-02", "2022-03-03"],
        "people_number": 2,
        "local_constraint": {"house rule": None, "cuisine": None, "room type": None, "transportation": None},
        "budget": 1100,
        "query": "A test trip.",
        "level": "easy",
    }
    constraint = changes.pop("local_constraint", {})
    record["local_constraint"].update(constraint)
    record.update(changes)
    return Query.from_record(record)


FLIGHT_OUT = "Flight Number: F0000001, from Springfield to Rivertown, Departure Time: 08:00, Arrival Time: 09:30"
FLIGHT_BACK = "Flight Number: F0000003, from Rivertown to Springfield, Departure Time: 20:00, Arrival Time: 21:30"


def plan() -> list[dict[str, Any]]:
    """A plan passing every check for `query()`; it costs 1070 (see test_hard)."""
    return [
        {
            "days": 1,
            "current_city": "from Springfield to Rivertown",
            "transportation": FLIGHT_OUT,
            "breakfast": "-",
            "attraction": "River Museum, Rivertown;",
            "lunch": "Blue Spoon, Rivertown",
            "dinner": "Red Fork, Rivertown",
            "accommodation": "Sunny Loft Downtown, Rivertown",
        },
        {
            "days": 2,
            "current_city": "Rivertown",
            "transportation": "-",
            "breakfast": "Green Bowl, Rivertown",
            "attraction": "Old Mill Park, Rivertown;City Zoo, Rivertown;",
            "lunch": "Golden Grill, Rivertown",
            "dinner": "Tea House, Rivertown",
            "accommodation": "Sunny Loft Downtown, Rivertown",
        },
        {
            "days": 3,
            "current_city": "from Rivertown to Springfield",
            "transportation": FLIGHT_BACK,
            "breakfast": "-",
            "attraction": "-",
            "lunch": "-",
            "dinner": "-",
            "accommodation": "-",
        },
    ]
