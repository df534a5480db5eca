"""The cities a generated sandbox covers: real US cities grouped in their states.

`data/cities.csv` lists each city with its state, approximate coordinates, a size class
(3 = hub airport, 2 = regional, 1 = small) that drives flight frequency and catalogue sizes,
and whether it is reachable by road (island cities are not, so driving there has no answer,
like the blanks of the official distance.csv).
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

STATE_CODES: dict[str, str] = {
    "Alaska": "AK",
    "Arizona": "AZ",
    "California": "CA",
    "Colorado": "CO",
    "District of Columbia": "DC",
    "Florida": "FL",
    "Georgia": "GA",
    "Hawaii": "HI",
    "Idaho": "ID",
    "Illinois": "IL",
    "Iowa": "IA",
    "Kentucky": "KY",
    "Louisiana": "LA",
    "Massachusetts": "MA",
    "Michigan": "MI",
    "Minnesota": "MN",
    "Missouri": "MO",
    "Montana": "MT",
    "Nevada": "NV",
    "New Jersey": "NJ",
    "New York": "NY",
    "North Carolina": "NC",
    "Ohio": "OH",
    "Oregon": "OR",
    "Pennsylvania": "PA",
    "South Carolina": "SC",
    "Tennessee": "TN",
    "Texas": "TX",
    "Utah": "UT",
    "Virginia": "VA",
    "Washington": "WA",
    "Wisconsin": "WI",
}


@dataclass(frozen=True)
class Place:
    city: str
    state: str
    latitude: float
    longitude: float
    size: int
    by_road: bool

    @property
    def state_code(self) -> str:
        return STATE_CODES.get(self.state, self.state[:2].upper())


@lru_cache(maxsize=1)
def places() -> tuple[Place, ...]:
    """Every city of the generated sandbox, in a fixed order."""
    text = resources.files("coevo.envs.travelplanner").joinpath("data/cities.csv").read_text("utf-8")
    return tuple(
        Place(
            city=row["city"],
            state=row["state"],
            latitude=float(row["latitude"]),
            longitude=float(row["longitude"]),
            size=int(row["size"]),
            by_road=row["by_road"] == "1",
        )
        for row in csv.DictReader(io.StringIO(text))
    )


def great_circle_km(a: Place, b: Place) -> float:
    """Haversine distance on a 6371 km sphere."""
    lat1, lon1, lat2, lon2 = map(math.radians, (a.latitude, a.longitude, b.latitude, b.longitude))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))
