"""The sandbox: the generated database's shape, official-folder import, db_url and caching."""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import func, select

from coevo.envs.travelplanner import sandbox_generator as gen
from coevo.envs.travelplanner.database import Sandbox, SandboxMismatch
from coevo.envs.travelplanner.geography import places
from coevo.envs.travelplanner.official_data import FILES, write_official_folder
from coevo.envs.travelplanner.schema import FlightRow

ROOM_TYPES = {"Entire home/apt", "Private room", "Shared room"}
RULES = set(gen.HOUSE_RULES)


def test_generated_sandbox_shape(generated: Sandbox) -> None:
    assert generated.meta["source"] == "generated" and generated.meta["seed"] == "0"
    counts = generated.counts()
    assert counts["cities"] == len(places()) and counts["flights"] > 100_000 and counts["restaurants"] > 3000
    assert len(generated.state_cities) >= 30 and all(
        len(c) > 3 for s, c in generated.state_cities.items() if s == "Texas"
    )
    with generated.engine.connect() as conn:
        numbers = conn.execute(select(func.count(), func.count(FlightRow.flight_number.distinct()))).one()
        dates = conn.execute(select(func.min(FlightRow.flight_date), func.max(FlightRow.flight_date))).one()
    assert numbers[0] == numbers[1]  # flight numbers are unique
    assert tuple(dates) == ("2022-03-01", "2022-03-31")


@pytest.mark.parametrize("city", ["Chicago", "Waco", "Nantucket", "Honolulu"])
def test_catalogues_are_complete_and_names_unambiguous(generated: Sandbox, city: str) -> None:
    stays, food, sights = generated.accommodations(city), generated.restaurants(city), generated.attractions(city)
    assert len(stays) >= 8 and len(food) >= 14 and len(sights) >= 7
    for rows in (stays, food, sights):
        names = [r.name for r in rows]
        assert all(sum(n in other for other in names) == 1 for n in names), "a name is a substring of another"
    for stay in stays:
        assert stay.room_type in ROOM_TYPES and stay.price > 0 and stay.maximum_occupancy >= 1
        assert set(stay.house_rules.split(" & ")) <= RULES and stay.minimum_nights >= 1
    assert all(2 <= len(r.cuisines.split(", ")) <= 5 and 10 <= r.average_cost <= 100 for r in food)


def test_roads(generated: Sandbox) -> None:
    drive = generated.drive("Austin", "Dallas")
    assert drive is not None and re.fullmatch(r"\d+ hours? \d+ mins?", drive.duration or "")
    assert re.fullmatch(r"[\d,.]+ km", drive.distance or "") and 250 < (drive.kilometres or 0) < 500
    island = generated.drive("Austin", "Honolulu")
    assert island is not None and island.duration is None and island.distance is None
    coast_to_coast = generated.drive("Miami", "Seattle")
    assert coast_to_coast is not None and coast_to_coast.over_a_day
    assert generated.drive("Austin", "Austin") is None


def test_generation_is_deterministic_by_seed() -> None:
    sample = places()[:14]
    first = list(gen._flights(sample, gen._rng(3, "flights")))
    assert first == list(gen._flights(sample, gen._rng(3, "flights")))
    assert first != list(gen._flights(sample, gen._rng(4, "flights")))
    city = places()[0]
    assert list(gen._restaurants(city, gen._rng(3, "c"))) == list(gen._restaurants(city, gen._rng(3, "c")))
    assert list(gen._accommodations(city, gen._rng(3, "c"))) != list(gen._accommodations(city, gen._rng(4, "c")))


def test_formats() -> None:
    assert gen.format_duration(45) == "45 mins" and gen.format_duration(61) == "1 hour 1 min"
    assert gen.format_duration(24 * 60 + 125) == "1 day 2 hours"
    assert gen.format_km(98.64) == "98.6 km" and gen.format_km(1143.6) == "1,144 km"


# ------------------------------------------------------------------ official folders and db_url
def test_official_folder_round_trip(tiny: Sandbox, tmp_path: Path) -> None:
    folder = tmp_path / "database"
    write_official_folder(tiny, folder)
    # A row with a missing value is dropped, as pandas' dropna() drops it for the official tools.
    with (folder / FILES["restaurants"]).open("a") as handle:
        handle.write("Broken Place,NaN,Cafe,4.0,Rivertown\n")
    loaded = Sandbox.open(database_dir=folder, db_url=f"sqlite:///{tmp_path / 'tp.sqlite'}")
    assert loaded.meta["source"] == "official"
    assert loaded.cities == tiny.cities and loaded.city_state == tiny.city_state
    for city in tiny.cities:
        assert loaded.accommodations(city) == tiny.accommodations(city)
        assert loaded.restaurants(city) == tiny.restaurants(city)
        assert loaded.attractions(city) == tiny.attractions(city)
    assert loaded.flights("Springfield", "Rivertown", "2022-03-01") == tiny.flights(
        "Springfield", "Rivertown", "2022-03-01"
    )
    assert loaded.drive("Springfield", "Portview") == tiny.drive("Springfield", "Portview")
    # Reopening trusts the filled database; a different source is refused.
    again = Sandbox.open(database_dir=folder, db_url=f"sqlite:///{tmp_path / 'tp.sqlite'}")
    assert again.counts() == loaded.counts()
    with pytest.raises(SandboxMismatch):
        Sandbox.open(seed=0, db_url=f"sqlite:///{tmp_path / 'tp.sqlite'}")


def test_missing_official_files_are_reported(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="clean_Flights_2022.csv"):
        Sandbox.open(database_dir=tmp_path, db_url="sqlite://")


def test_cached_file_is_built_once(tiny: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from coevo.envs.travelplanner import database
    from tests.travelplanner.tiny import TABLES

    monkeypatch.setenv("COEVO_CACHE_DIR", str(tmp_path))
    builds = Counter()

    def builder() -> tuple[dict[str, str], dict]:
        builds["n"] += 1
        return {"source": "test"}, TABLES

    first = database.Sandbox._open_cached_file("unit", {"source": "test"}, builder)
    second = database.Sandbox._open_cached_file("unit", {"source": "test"}, builder)
    assert builds["n"] == 1 and first.cities == second.cities == tiny.cities
    assert [p.name for p in (tmp_path / "travelplanner").iterdir()] == ["unit.sqlite"]


@pytest.mark.postgres
def test_postgresql(tiny: Sandbox, tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    from sqlalchemy import create_engine, text

    admin = create_engine("postgresql+psycopg://postgres@127.0.0.1:5432/test", isolation_level="AUTOCOMMIT")
    name = f"tp_{random.randrange(10**9)}"
    try:
        with admin.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {name}"))
    except Exception as exc:  # pragma: no cover - no server on this machine
        pytest.skip(f"PostgreSQL unavailable: {exc}")
    try:
        folder = tmp_path / "database"
        write_official_folder(tiny, folder)
        sandbox = Sandbox.open(database_dir=folder, db_url=f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}")
        assert sandbox.restaurants("Rivertown") == tiny.restaurants("Rivertown")
        assert sandbox.flights_numbered("F0000003") == tiny.flights_numbered("F0000003")
        sandbox.engine.dispose()
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.dispose()
