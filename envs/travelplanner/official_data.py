"""Import of the official TravelPlanner database folder (the files of its Google Drive archive).

Layout expected under the folder, as released:
  flights/clean_Flights_2022.csv, accommodations/clean_accommodations_2022.csv,
  restaurants/clean_restaurant_2022.csv, attractions/attractions.csv,
  googleDistanceMatrix/distance.csv, background/citySet_with_states.txt

The official tools read each CSV with pandas and drop every row holding a missing value
(`dropna()`), except distance.csv whose blanks mean "no road"; the import does the same, with
pandas' default set of strings that count as missing, so the sandbox has exactly their rows.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import Table

from coevo.envs.travelplanner.database import Sandbox

from coevo.envs.travelplanner.schema import (
    AccommodationRow,
    AttractionRow,
    CityRow,
    DistanceRow,
    FlightRow,
    RestaurantRow,
)

#: Strings pandas.read_csv reads as NaN by default.
PANDAS_NA = frozenset(
    {
        "",
        "#N/A",
        "#N/A N/A",
        "#NA",
        "-1.#IND",
        "-1.#QNAN",
        "-NaN",
        "-nan",
        "1.#IND",
        "1.#QNAN",
        "<NA>",
        "N/A",
        "NA",
        "NULL",
        "NaN",
        "None",
        "n/a",
        "nan",
        "null",
    }
)

FILES = {
    "flights": "flights/clean_Flights_2022.csv",
    "accommodations": "accommodations/clean_accommodations_2022.csv",
    "restaurants": "restaurants/clean_restaurant_2022.csv",
    "attractions": "attractions/attractions.csv",
    "distances": "googleDistanceMatrix/distance.csv",
    "cities": "background/citySet_with_states.txt",
}


def _integer(value: str) -> int:
    return int(float(value))


_CONVERT: dict[str, dict[str, Callable[[str], Any]]] = {
    "flights": {
        "Flight Number": str,
        "Price": _integer,
        "DepTime": str,
        "ArrTime": str,
        "ActualElapsedTime": str,
        "FlightDate": str,
        "OriginCityName": str,
        "DestCityName": str,
        "Distance": float,
    },
    "accommodations": {
        "NAME": str,
        "price": float,
        "room type": str,
        "house_rules": str,
        "minimum nights": float,
        "maximum occupancy": _integer,
        "review rate number": float,
        "city": str,
    },
    "restaurants": {"Name": str, "Average Cost": _integer, "Cuisines": str, "Aggregate Rating": float, "City": str},
    "attractions": {
        "Name": str,
        "Latitude": float,
        "Longitude": float,
        "Address": str,
        "Phone": str,
        "Website": str,
        "City": str,
    },
}


def _complete_rows(path: Path, kind: str) -> Iterator[dict[str, Any]]:
    """Rows with every field present (pandas dropna over all columns), converted to column types."""
    convert = _CONVERT[kind]
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = [column for column in convert if column not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path}: missing official columns {missing}")
        for row in reader:
            if any(value is None or value in PANDAS_NA for value in row.values()):
                continue
            yield {column: cast(row[column]) for column, cast in convert.items()}


def _distances(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            duration, distance = row.get("duration") or "", row.get("distance") or ""
            yield {
                "origin": row["origin"],
                "destination": row["destination"],
                "duration": None if duration in PANDAS_NA else duration,
                "distance": None if distance in PANDAS_NA else distance,
            }


def _cities(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").strip().split("\n"):
        city, _, state = line.rstrip("\r").partition("\t")
        yield {"city": city, "state": state}


def official_tables(folder: Path) -> Mapping[Table, Iterable[Mapping[str, Any]]]:
    """Row streams per sandbox table, read lazily (the flights file has millions of rows)."""
    paths = {kind: folder / rel for kind, rel in FILES.items()}
    absent = [str(p) for p in paths.values() if not p.is_file()]
    if absent:
        raise FileNotFoundError(f"official TravelPlanner files missing: {', '.join(absent)}")
    return {
        CityRow.__table__: _cities(paths["cities"]),
        FlightRow.__table__: _complete_rows(paths["flights"], "flights"),
        DistanceRow.__table__: _distances(paths["distances"]),
        AccommodationRow.__table__: _complete_rows(paths["accommodations"], "accommodations"),
        RestaurantRow.__table__: _complete_rows(paths["restaurants"], "restaurants"),
        AttractionRow.__table__: _complete_rows(paths["attractions"], "attractions"),
    }


def write_official_folder(db: Sandbox, folder: Path) -> None:
    """Write a sandbox in the official folder layout, so the original scripts can read it too."""
    from coevo.envs.travelplanner.records import Accommodation, Attraction, Flight, Restaurant

    def dump(rel: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(columns)
            writer.writerows(rows)

    cities = db.cities
    dump(FILES["accommodations"], Accommodation.COLUMNS, (row for c in cities for row in db.accommodations(c)))
    dump(FILES["restaurants"], Restaurant.COLUMNS, (row for c in cities for row in db.restaurants(c)))
    dump(FILES["attractions"], Attraction.COLUMNS, (row for c in cities for row in db.attractions(c)))
    dump(
        FILES["flights"],
        Flight.COLUMNS,
        (row for a in cities for b in cities if a != b for row in db.route_flights(a, b)),
    )
    drives = (db.drive(a, b) for a in cities for b in cities if a != b)
    dump(
        FILES["distances"],
        ("origin", "destination", "cost", "duration", "distance"),
        ((d.origin, d.destination, "", d.duration or "", d.distance or "") for d in drives if d is not None),
    )
    path = folder / FILES["cities"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(f"{city}\t{db.city_state[city]}" for city in cities), encoding="utf-8")
