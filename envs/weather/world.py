"""The weather sandbox: cities for the geocoder and a daily weather record for every place and
date, generated deterministically from the nearest city's climate (or the latitude's), with
pinned values where a loaded task's answer demands them.

Open-Meteo answers for any coordinates on its grid; so does this world: a place is its grid
cell (0.1 degree), and the same cell and date always give the same day. Values carry one
decimal as Open-Meteo's daily series do.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from coevo.envs.toolusage.progress import near

DATA = Path(__file__).parent / "data"
#: The archive's first and last dates (outside: the service's range error).
FIRST_DATE = date(1940, 1, 1)
LAST_DATE = date(2030, 12, 31)


@dataclass(frozen=True)
class City:
    name: str
    latitude: float
    longitude: float
    country_code: str
    elevation: float
    mean: float
    amplitude: float
    daily_range: float
    wet: float
    aqi: float

    def geocoded(self) -> dict[str, Any]:
        """The fields Open-Meteo's geocoder keeps after the original's cleaning."""
        return {
            "name": self.name,
            "latitude": self.latitude,
            "longitude": self.longitude,
            "country_code": self.country_code,
        }


@dataclass(frozen=True)
class Day:
    temperature_2m_max: float
    temperature_2m_min: float
    temperature_2m_mean: float
    rain_sum: float
    snowfall_sum: float
    european_aqi_pm2_5: int


def grid(value: float) -> float:
    """The grid coordinate Open-Meteo answers with for `value`."""
    return round(round(value * 10) / 10, 6)


def seeded_rng(*parts: object) -> random.Random:
    digest = hashlib.blake2b("|".join(map(str, parts)).encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def load_cities(path: Path = DATA / "cities.json") -> list[City]:
    return [City(**row) for row in json.loads(path.read_text(encoding="utf-8"))["cities"]]


class WeatherWorld:
    """Read-only after construction; pins are added while tasks are loaded."""

    def __init__(self, cities: list[City]) -> None:
        self.cities = list(cities)
        self.pins: dict[tuple[float, float, str], dict[str, float]] = {}
        #: Elevations pinned per grid cell (a loaded task's elevation difference).
        self.heights: dict[tuple[float, float], float] = {}
        #: Upper bounds on days not pinned (a loaded task's maximum): later pins keep under them.
        self.caps: dict[tuple[float, float, str], dict[str, float]] = {}

    # ------------------------------------------------------------ places
    def geocode(self, name: str) -> list[City]:
        """Up to 3 cities whose name starts with `name` (case-insensitive), exact matches first."""
        query = name.strip().lower()
        if not query:
            return []
        hits = [c for c in self.cities if c.name.lower().startswith(query)]
        hits.sort(key=lambda c: c.name.lower() != query)
        return hits[:3]

    def city(self, name: str) -> City | None:
        found = self.geocode(name)
        return found[0] if found and found[0].name.lower() == name.strip().lower() else None

    def climate(self, lat: float, lon: float) -> City:
        """The nearest city within 50 km, else a climate the latitude suggests."""
        for c in self.cities:
            if near((lat, lon), (c.latitude, c.longitude)):
                return c
        rng = seeded_rng("climate", grid(lat), grid(lon))
        mean = 28.0 - 0.45 * abs(lat) + rng.uniform(-2, 2)
        return City("", lat, lon, "", round(rng.uniform(0, 800)), mean, 0.25 * abs(lat), 9.0, 0.3, 20.0)

    def elevation(self, lat: float, lon: float) -> float:
        pinned = self.heights.get((grid(lat), grid(lon)))
        return pinned if pinned is not None else float(self.climate(lat, lon).elevation)

    def pin_elevation(self, lat: float, lon: float, value: float) -> None:
        self.heights[(grid(lat), grid(lon))] = float(value)

    def add_place(self, name: str) -> City:
        """A place the cities lack (a loaded task's location or destination): from
        data/places.json where it is there, else at made-up coordinates more than 60 km from
        every other place, so it has its own weather."""
        known = next((c for c in load_cities(DATA / "places.json") if c.name == name), None)
        if known is not None:
            self.cities.append(known)
            return known
        rng = seeded_rng("place", name)
        while True:
            lat, lon = round(rng.uniform(-45, 60), 5), round(rng.uniform(-150, 150), 5)
            if not any(near((lat, lon), (c.latitude, c.longitude), 60.0) for c in self.cities):
                break
        city = City(name, lat, lon, "", 100, 13, 10, 9, 0.3, 20)
        self.cities.append(city)
        return city

    def move(self, name: str, latitude: float, longitude: float) -> City:
        """Put the named place at new coordinates (a loaded task's distance needs them)."""
        for i, c in enumerate(self.cities):
            if c.name == name:
                self.cities[i] = replace(c, latitude=latitude, longitude=longitude)
                return self.cities[i]
        raise KeyError(name)

    # ------------------------------------------------------------ days
    def day(self, lat: float, lon: float, when: date) -> Day:
        cell = (grid(lat), grid(lon))
        c = self.climate(lat, lon)
        rng = seeded_rng("day", cell[0], cell[1], when.isoformat())
        season = math.cos(2 * math.pi * (when.timetuple().tm_yday - 200) / 365.25)
        if lat < 0:
            season = -season
        mean = round(c.mean + c.amplitude * season + rng.gauss(0, 2.5), 1)
        high = round(mean + c.daily_range / 2 + rng.gauss(0, 1.0), 1)
        low = round(mean - c.daily_range / 2 - rng.gauss(0, 1.0), 1)
        precipitation = rng.expovariate(1 / 6) if rng.random() < c.wet else 0.0
        snow_share = 1.0 if mean < 0 else 0.5 if mean < 2 else 0.0
        rain = round(precipitation * (1 - snow_share), 1)
        snow = round(precipitation * snow_share * 0.7, 2)
        aqi = max(1, round(c.aqi * (0.5 + rng.random())))
        result = Day(max(high, mean), min(low, mean), mean, rain, snow, aqi)
        pinned = self.pins.get((cell[0], cell[1], when.isoformat()))
        return _pinned(result, pinned) if pinned else result

    def cap(self, lat: float, lon: float, when: date, field: str, most: float) -> None:
        """Keep the day's `field` at or below `most` wherever a later rule fills it."""
        bounds = self.caps.setdefault((grid(lat), grid(lon), when.isoformat()), {})
        bounds[field] = min(most, bounds.get(field, most))

    def cap_of(self, lat: float, lon: float, when: date, field: str) -> float | None:
        return self.caps.get((grid(lat), grid(lon), when.isoformat()), {}).get(field)

    def pin(self, lat: float, lon: float, when: date, values: Mapping[str, float]) -> None:
        """Make the day at (lat, lon, when) carry `values` (a loaded task's answer)."""
        key = (grid(lat), grid(lon), when.isoformat())
        self.pins.setdefault(key, {}).update(values)


def _pinned(day: Day, values: Mapping[str, float]) -> Day:
    """`day` with the pinned values, the unpinned temperatures moved to keep max >= mean >= min."""
    high, mean, low = day.temperature_2m_max, day.temperature_2m_mean, day.temperature_2m_min
    high = values.get("temperature_2m_max", high)
    low = values.get("temperature_2m_min", low)
    if "temperature_2m_mean" in values:
        mean = values["temperature_2m_mean"]
    else:
        mean = min(max(mean, low), high)
    if "temperature_2m_max" not in values:
        high = max(high, mean)
    if "temperature_2m_min" not in values:
        low = min(low, mean)
    rest = {k: v for k, v in values.items() if not k.startswith("temperature")}
    return replace(day, temperature_2m_max=high, temperature_2m_mean=mean, temperature_2m_min=low, **rest)  # type: ignore[arg-type]
