"""A generated sandbox with the shape of the official TravelPlanner database, deterministic by seed.

Real cities grouped in their states (`geography`), a dated flight schedule for March 2022
(hubs connect often, small airports rarely, so "There is no flight ..." is common), driving
distances from coordinates with road detours (blank for island cities, over a day for
cross-country pairs: both answer "No valid information." like the official data), and per-city
catalogues of rentals (room types, house rules, minimum nights, occupancy), restaurants
(cuisines, average cost) and attractions. Names are unique per city and never a substring of
another name in the same city, because the official evaluator matches names by substring.

Each table draws from its own random stream so changing one never reshuffles another.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import partial
from typing import Any

from coevo.envs.travelplanner.geography import Place, great_circle_km, places

GENERATOR_VERSION = "1"

#: The month the official queries (and so the flight schedule) cover.
FIRST_DATE = date(2022, 3, 1)
SCHEDULE_DAYS = 31

ROOM_TYPES = ("Entire home/apt", "Private room", "Shared room")
HOUSE_RULES = ("No smoking", "No parties", "No children under 10", "No visitors", "No pets")
CUISINES = (
    "Tea",
    "French",
    "Bakery",
    "BBQ",
    "Cafe",
    "American",
    "Seafood",
    "Italian",
    "Indian",
    "Fast Food",
    "Chinese",
    "Desserts",
    "Pizza",
    "Mediterranean",
    "Mexican",
)

_HUBNESS = {3: 1.0, 2: 0.55, 1: 0.25}

_STAY_ADJECTIVES = (
    "Cozy",
    "Sunny",
    "Spacious",
    "Charming",
    "Modern",
    "Bright",
    "Quiet",
    "Stylish",
    "Elegant",
    "Rustic",
    "Lovely",
    "Luxury",
    "Renovated",
    "Airy",
    "Peaceful",
    "Classic",
    "Chic",
    "Homey",
    "Serene",
    "Vintage",
    "Artsy",
    "Comfy",
    "Private",
    "Sleek",
    "Welcoming",
    "Hidden",
)
_STAY_UNITS = {
    "Entire home/apt": (
        "2BR Apartment",
        "Loft",
        "Studio",
        "Townhouse",
        "Cottage",
        "3BDR Home",
        "Penthouse",
        "Bungalow",
        "Condo",
        "Garden Flat",
        "Duplex",
        "Family House",
        "1 Bedroom Apt",
    ),
    "Private room": (
        "Private Room",
        "Bedroom",
        "Guest Room",
        "Room with Private Bath",
        "Queen Room",
        "Attic Room",
        "Bedroom Suite",
    ),
    "Shared room": ("Shared Room", "Bunk in Shared Dorm", "Sofa Bed in Shared Space", "Shared Loft Bed"),
}
_STAY_PLACES = (
    "near Downtown",
    "by the Park",
    "in Historic District",
    "close to Museums",
    "with Garden View",
    "near the River",
    "on Quiet Street",
    "with Skyline View",
    "near Old Town",
    "by the Lake",
    "steps from Transit",
    "near the University",
    "in Arts District",
    "with Rooftop Deck",
    "near Waterfront",
    "in Leafy Suburb",
)
_FOOD_FIRST = (
    "Golden",
    "Blue",
    "Red",
    "Little",
    "Green",
    "Silver",
    "Urban",
    "Rustic",
    "Royal",
    "Happy",
    "Lucky",
    "Sunny",
    "Copper",
    "Velvet",
    "Wild",
    "Hidden",
    "Harbor",
    "River",
    "Maple",
    "Olive",
    "Saffron",
    "Spice",
    "Basil",
    "Ginger",
    "Pepper",
    "Mango",
    "Lotus",
    "Cedar",
    "Juniper",
    "Crimson",
    "Amber",
    "Coral",
    "Smoky",
    "Twisted",
    "Humble",
    "Jade",
    "Tamarind",
    "Fig",
)
_FOOD_SECOND = (
    "Spoon",
    "Fork",
    "Kitchen",
    "Table",
    "Bistro",
    "Grill",
    "Cafe",
    "Diner",
    "Tavern",
    "Eatery",
    "Oven",
    "Plate",
    "Bowl",
    "Pantry",
    "Canteen",
    "Brasserie",
    "Chophouse",
    "Noodle Bar",
    "Taqueria",
    "Trattoria",
    "Curry House",
    "Dumpling House",
    "Bakehouse",
    "Smokehouse",
    "Pizzeria",
    "Creamery",
    "Tea Room",
    "Cantina",
    "Steakhouse",
    "Lunch Counter",
)
_ATTRACTION_PATTERNS = (
    "{city} Museum of Art",
    "{city} Botanical Garden",
    "{city} Zoo",
    "{city} History Center",
    "{city} Science Center",
    "Old Town {city}",
    "{city} Riverwalk",
    "{city} Aquarium",
    "{city} Arboretum",
    "{city} Public Market",
    "{city} Symphony Hall",
    "{city} Sculpture Garden",
    "{city} Heritage Village",
    "{city} Nature Preserve",
    "{city} Observatory",
)
_PARK_NAMES = (
    "Riverside",
    "Lakeview",
    "Memorial",
    "Pioneer",
    "Liberty",
    "Heritage",
    "Centennial",
    "Founders",
    "Veterans",
    "Sunset",
    "Oak Hill",
    "Cedar Grove",
    "Bluff",
    "Prairie",
    "Waterfront",
    "Eagle Point",
)
_MUSEUM_KINDS = (
    "Children's Museum",
    "Railroad Museum",
    "Aviation Museum",
    "Maritime Museum",
    "Natural History Museum",
    "Contemporary Art Museum",
    "Folk Art Museum",
    "Firefighters Museum",
    "Automobile Museum",
    "Music Hall of Fame",
)
_THEATRES = ("Grand Theatre", "Orpheum Theatre", "Majestic Theatre", "Palace Theatre", "Paramount Theatre")
_STREETS = (
    "Main St",
    "Oak Ave",
    "Park Blvd",
    "River Rd",
    "Market St",
    "Lake Dr",
    "Elm St",
    "Broadway",
    "Washington Ave",
    "2nd St",
    "Center St",
    "Hill Rd",
    "Museum Way",
    "Garden Ln",
)


@dataclass
class SandboxRows:
    """Rows per table, as dicts keyed by the official column names."""

    cities: list[dict[str, Any]] = field(default_factory=list)
    flights: list[dict[str, Any]] = field(default_factory=list)
    distances: list[dict[str, Any]] = field(default_factory=list)
    accommodations: list[dict[str, Any]] = field(default_factory=list)
    restaurants: list[dict[str, Any]] = field(default_factory=list)
    attractions: list[dict[str, Any]] = field(default_factory=list)


def _rng(seed: int, stream: str) -> random.Random:
    return random.Random(f"travelplanner-sandbox/{GENERATOR_VERSION}/{seed}/{stream}")


def generate_sandbox(seed: int = 0) -> SandboxRows:
    """All tables of the generated sandbox for `seed`."""
    cities = places()
    rows = SandboxRows()
    rows.cities = [{"city": p.city, "state": p.state} for p in cities]
    rows.distances = list(_distances(cities, _rng(seed, "distances")))
    rows.flights = list(_flights(cities, _rng(seed, "flights")))
    catalogue = _rng(seed, "catalogue")
    for place in cities:
        rows.accommodations.extend(_accommodations(place, catalogue))
        rows.restaurants.extend(_restaurants(place, catalogue))
        rows.attractions.extend(_attractions(place, catalogue))
    return rows


# ------------------------------------------------------------------------------------ roads
def format_duration(minutes: int) -> str:
    """Google Distance Matrix style: "45 mins", "1 hour 1 min", "1 day 3 hours"."""

    def unit(n: int, word: str) -> str:
        return f"{n} {word}" + ("" if n == 1 else "s")

    if minutes >= 24 * 60:
        days, rest = divmod(minutes, 24 * 60)
        return f"{unit(days, 'day')} {unit(rest // 60, 'hour')}"
    hours, mins = divmod(minutes, 60)
    if hours == 0:
        return unit(mins, "min")
    return f"{unit(hours, 'hour')} {unit(mins, 'min')}"


def format_km(km: float) -> str:
    """Google Distance Matrix style: "98.6 km", "901 km", "1,144 km"."""
    if km < 100:
        return f"{km:.1f} km"
    return f"{int(round(km)):,} km"


def _distances(cities: tuple[Place, ...], rng: random.Random) -> Iterator[dict[str, Any]]:
    detour: dict[tuple[str, str], tuple[float, float]] = {}
    for a in cities:
        for b in cities:
            if a.city == b.city:
                continue
            key = (min(a.city, b.city), max(a.city, b.city))
            if key not in detour:
                detour[key] = (rng.uniform(1.12, 1.32), rng.uniform(84.0, 102.0))
            factor, speed = detour[key]
            skew = rng.uniform(0.995, 1.005)  # the two directions differ slightly, as on real roads
            if not (a.by_road and b.by_road):
                yield {"origin": a.city, "destination": b.city, "duration": None, "distance": None}
                continue
            km = great_circle_km(a, b) * factor * skew
            minutes = int(round(km / speed * 60 + 8))
            yield {
                "origin": a.city,
                "destination": b.city,
                "duration": format_duration(minutes),
                "distance": format_km(km),
            }


# ------------------------------------------------------------------------------------ flights
def _poisson_cdf(mean: float, upto: int = 12) -> list[float]:
    """Cumulative Poisson probabilities P(X <= k), k = 0..upto (one uniform draw samples it)."""
    term, total, cdf = math.exp(-mean), 0.0, []
    for k in range(upto + 1):
        total += term
        cdf.append(total)
        term *= mean / (k + 1)
    return cdf


_CLOCK = tuple(f"{m // 60:02d}:{m % 60:02d}" for m in range(24 * 60))
_DATES = tuple((FIRST_DATE + timedelta(days=offset)).isoformat() for offset in range(SCHEDULE_DAYS))


def _flights(cities: tuple[Place, ...], rng: random.Random) -> Iterator[dict[str, Any]]:
    """Routes between airports (likelier between hubs), each with a Poisson number of daily flights."""
    draw = rng.random
    number = 3_500_000 + int(draw() * 50_000)
    for a in cities:
        for b in cities:
            if a.city == b.city:
                continue
            km = great_circle_km(a, b)
            if km < 150:
                continue
            reach = _HUBNESS[a.size] * _HUBNESS[b.size]
            if draw() >= min(0.92, 0.03 + 0.9 * reach):
                continue
            cdf = _poisson_cdf(0.3 + 1.6 * reach)
            miles = float(round(km / 1.609344))
            base_price = 50 + 0.2 * miles
            for day in _DATES:
                for _ in range(bisect.bisect_left(cdf, draw())):
                    number += 1 + int(draw() * 9)
                    dep = 300 + int(draw() * 1050)
                    elapsed = int(round(miles / 7.5 + 20 + draw() * 30))
                    yield {
                        "Flight Number": f"F{number:07d}",
                        "Price": int(max(35, base_price * (0.55 + 1.15 * draw()))),
                        "DepTime": _CLOCK[dep],
                        "ArrTime": _CLOCK[(dep + elapsed) % (24 * 60)],
                        "ActualElapsedTime": f"{elapsed // 60} hours {elapsed % 60} minutes",
                        "FlightDate": day,
                        "OriginCityName": a.city,
                        "DestCityName": b.city,
                        "Distance": miles,
                    }


# ------------------------------------------------------------------------------------ catalogues
def _fresh_name(rng: random.Random, taken: list[str], make: Callable[[random.Random], str]) -> str | None:
    """A name from `make` that is neither a substring nor a superstring of any taken name."""
    for _ in range(40):
        name = make(rng)
        if not any(name in other or other in name for other in taken):
            return name
    return None


def _unique_names(rng: random.Random, count: int, make: Callable[[random.Random], str]) -> list[str]:
    """Up to `count` names from `make`, none equal to or a substring of another."""
    names: list[str] = []
    while len(names) < count:
        name = _fresh_name(rng, names, make)
        if name is None:
            break
        names.append(name)
    return names


def _count(rng: random.Random, size: int, ranges: dict[int, tuple[int, int]]) -> int:
    low, high = ranges[size]
    return rng.randint(low, high)


def _stay_name(kind: str, r: random.Random) -> str:
    return f"{r.choice(_STAY_ADJECTIVES)} {r.choice(_STAY_UNITS[kind])} {r.choice(_STAY_PLACES)}"


def _accommodations(place: Place, rng: random.Random) -> Iterator[dict[str, Any]]:
    count = _count(rng, place.size, {3: (18, 26), 2: (13, 18), 1: (9, 13)})
    kinds = [rng.choices(ROOM_TYPES, weights=(0.5, 0.36, 0.14))[0] for _ in range(count)]

    taken: list[str] = []
    for kind in kinds:
        name = _fresh_name(rng, taken, partial(_stay_name, kind))
        if name is None:
            continue
        taken.append(name)
        if kind == "Entire home/apt":
            price, occupancy = rng.randint(110, 1200), rng.choices(range(2, 11), weights=(5, 5, 5, 4, 3, 2, 1, 1, 1))[0]
        elif kind == "Private room":
            price, occupancy = rng.randint(45, 600), rng.choice((1, 2, 2, 3))
        else:
            price, occupancy = rng.randint(30, 320), rng.choice((1, 1, 2))
        nights = rng.choices((1, 2, 3, 4, 5, 7, 10, 30), weights=(32, 26, 15, 8, 6, 5, 4, 4))[0]
        rules = [rule for rule in HOUSE_RULES if rng.random() < 0.33] or [rng.choice(HOUSE_RULES)]
        rng.shuffle(rules)
        yield {
            "NAME": name,
            "price": float(price),
            "room type": kind,
            "house_rules": " & ".join(rules),
            "minimum nights": float(nights),
            "maximum occupancy": occupancy,
            "review rate number": float(rng.randint(1, 5)),
            "city": place.city,
        }


def _restaurants(place: Place, rng: random.Random) -> Iterator[dict[str, Any]]:
    count = _count(rng, place.size, {3: (28, 38), 2: (20, 28), 1: (15, 21)})
    names = _unique_names(rng, count, lambda r: f"{r.choice(_FOOD_FIRST)} {r.choice(_FOOD_SECOND)}")
    for name in names:
        cuisines = rng.sample(CUISINES, rng.randint(2, 5))
        rating = 0.0 if rng.random() < 0.06 else round(rng.uniform(2.5, 4.9), 1)
        yield {
            "Name": name,
            "Average Cost": rng.randint(10, 100),
            "Cuisines": ", ".join(cuisines),
            "Aggregate Rating": rating,
            "City": place.city,
        }


def _attraction_name(place: Place) -> Callable[[random.Random], str]:
    def make(r: random.Random) -> str:
        kind = r.random()
        if kind < 0.45:
            return r.choice(_ATTRACTION_PATTERNS).format(city=place.city)
        if kind < 0.7:
            return f"{r.choice(_PARK_NAMES)} Park"
        if kind < 0.9:
            return f"{place.city} {r.choice(_MUSEUM_KINDS)}"
        return r.choice(_THEATRES)

    return make


def _attractions(place: Place, rng: random.Random) -> Iterator[dict[str, Any]]:
    count = _count(rng, place.size, {3: (15, 22), 2: (10, 15), 1: (7, 11)})
    for name in _unique_names(rng, count, _attraction_name(place)):
        slug = "".join(ch for ch in name.lower() if ch.isalnum())
        yield {
            "Name": name,
            "Latitude": round(place.latitude + rng.gauss(0, 0.04), 7),
            "Longitude": round(place.longitude + rng.gauss(0, 0.04), 7),
            "Address": (
                f"{rng.randint(10, 9999)} {rng.choice(_STREETS)}, {place.city}, "
                f"{place.state_code} {rng.randint(10000, 99999)}, USA"
            ),
            "Phone": f"({rng.randint(201, 989)}) {rng.randint(200, 999)}-{rng.randint(0, 9999):04d}",
            "Website": "Unknown" if rng.random() < 0.08 else f"https://www.{slug}.org/",
            "City": place.city,
        }
