"""The sandbox database: SQL tables behind SQLAlchemy, read-only once built, shared by all sessions.

A sandbox is built once into its database and then only read:
- by default, a generated sandbox (deterministic by seed) in a SQLite file cached under
  `$COEVO_CACHE_DIR` (default `~/.cache/coevo`), so every process and every test run after the
  first opens it in milliseconds;
- `db_url` puts it anywhere SQLAlchemy reaches (another SQLite file, PostgreSQL); an empty
  database is filled on first use, a filled one is checked to hold the sandbox asked for;
- `database_dir` imports the official CSV files instead of generating.

Lookups the tools and the evaluator repeat (a city's restaurants, a route's flights on a day)
are cached in memory as tuples of immutable records, so a hot server rarely touches SQL.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, Table, bindparam, create_engine, delete, event, insert, select
from sqlalchemy.pool import StaticPool

from coevo.paths import cache_dir

from coevo.envs.travelplanner.records import Accommodation, Attraction, Drive, Flight, Restaurant
from coevo.envs.travelplanner.schema import (
    SANDBOX_TABLES,
    AccommodationRow,
    AttractionRow,
    CityRow,
    DistanceRow,
    FlightRow,
    MetaRow,
    RestaurantRow,
    SandboxBase,
)

R = TypeVar("R")
#: Makes a sandbox's metadata and row streams per table (called only when it must be built).
Builder = Callable[[], tuple[dict[str, str], Mapping[Table, Iterable[Mapping[str, Any]]]]]

_BATCH = 20_000


class SandboxMismatch(RuntimeError):
    """The database at db_url holds a different sandbox than the one asked for."""


def _engine(url: str) -> Engine:
    if url.startswith("sqlite") and (url in ("sqlite://", "sqlite:///:memory:")):
        # One shared in-memory database for every thread of this process.
        return create_engine(url, connect_args={"check_same_thread": False}, poolclass=StaticPool)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def _insert_all(engine: Engine, table: Table, rows: Iterable[Mapping[str, Any]]) -> None:
    batch: list[Mapping[str, Any]] = []
    with engine.begin() as conn:
        for row in rows:
            batch.append(row)
            if len(batch) >= _BATCH:
                conn.execute(insert(table), batch)
                batch = []
        if batch:
            conn.execute(insert(table), batch)


def _read_meta(engine: Engine) -> dict[str, str]:
    with engine.connect() as conn:
        return {key: value for key, value in conn.execute(select(MetaRow.key, MetaRow.value))}


def fill(engine: Engine, meta: Mapping[str, str], tables: Mapping[Table, Iterable[Mapping[str, Any]]]) -> None:
    """Create the sandbox tables, insert every row, then record `meta` (last, so a crash mid-way
    leaves a database that the next open rebuilds instead of trusting)."""
    SandboxBase.metadata.create_all(engine, tables=SANDBOX_TABLES)
    with engine.begin() as conn:
        for table in SANDBOX_TABLES:
            conn.execute(delete(table))
    for table, rows in tables.items():
        _insert_all(engine, table, rows)
    _insert_all(engine, MetaRow.__table__, [{"key": k, "value": v} for k, v in meta.items()])


def _generated_tables(seed: int) -> tuple[dict[str, str], Mapping[Table, Iterable[Mapping[str, Any]]]]:
    from coevo.envs.travelplanner.sandbox_generator import GENERATOR_VERSION, generate_sandbox

    rows = generate_sandbox(seed)
    meta = {"source": "generated", "generator_version": GENERATOR_VERSION, "seed": str(seed)}
    return meta, {
        CityRow.__table__: rows.cities,
        FlightRow.__table__: rows.flights,
        DistanceRow.__table__: rows.distances,
        AccommodationRow.__table__: rows.accommodations,
        RestaurantRow.__table__: rows.restaurants,
        AttractionRow.__table__: rows.attractions,
    }


def _official_tables(folder: Path) -> tuple[dict[str, str], Mapping[Table, Iterable[Mapping[str, Any]]]]:
    from coevo.envs.travelplanner.official_data import official_tables

    return {"source": "official", "folder": str(folder.resolve())}, official_tables(folder)


class Sandbox:
    """Read access to one sandbox; every lookup returns immutable records (safe to share)."""

    def __init__(self, engine: Engine, meta: Mapping[str, str]) -> None:
        self.engine = engine
        self.meta = dict(meta)
        # An in-memory SQLite has one connection for all threads: serialise its use.
        self._lock = threading.Lock() if engine.pool.__class__ is StaticPool else None
        with engine.connect() as conn:
            pairs = [(c, s) for c, s in conn.execute(select(CityRow.city, CityRow.state).order_by(CityRow.id))]
        #: The official citySet_with_states: city -> state, and state -> its cities in order.
        self.city_state: dict[str, str] = dict(pairs)
        self.state_cities: dict[str, list[str]] = {}
        for city, state in pairs:
            self.state_cities.setdefault(state, []).append(city)
        #: Cities in file order (the official tools validate city arguments against this list).
        self.cities: list[str] = [c for c, _ in pairs]
        self.flights: Callable[[str, str, str], tuple[Flight, ...]] = lru_cache(maxsize=200_000)(self._flights)
        self.route_flights: Callable[[str, str], tuple[Flight, ...]] = lru_cache(maxsize=50_000)(self._route_flights)
        self.flights_numbered: Callable[[str], tuple[Flight, ...]] = lru_cache(maxsize=200_000)(self._flights_numbered)
        self.accommodations: Callable[[str], tuple[Accommodation, ...]] = lru_cache(maxsize=8192)(self._accommodations)
        self.restaurants: Callable[[str], tuple[Restaurant, ...]] = lru_cache(maxsize=8192)(self._restaurants)
        self.attractions: Callable[[str], tuple[Attraction, ...]] = lru_cache(maxsize=8192)(self._attractions)
        self.drive: Callable[[str, str], Drive | None] = lru_cache(maxsize=200_000)(self._drive)

    # ------------------------------------------------------------------ construction
    @classmethod
    def open(
        cls,
        *,
        seed: int = 0,
        database_dir: str | os.PathLike[str] | None = None,
        db_url: str | None = None,
    ) -> Sandbox:
        """The sandbox asked for, building it first where it does not exist yet."""
        if database_dir is not None:
            folder = Path(database_dir)
            if not folder.is_dir():
                raise FileNotFoundError(f"TravelPlanner database folder not found: {folder}")
            expected = {"source": "official", "folder": str(folder.resolve())}
            builder: Builder = partial(_official_tables, folder)
            name = "official-" + hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:12]
        else:
            from coevo.envs.travelplanner.sandbox_generator import GENERATOR_VERSION

            expected = {"source": "generated", "generator_version": GENERATOR_VERSION, "seed": str(seed)}
            builder = partial(_generated_tables, seed)
            name = f"generated-v{GENERATOR_VERSION}-seed{seed}"
        if db_url is None:
            return cls._open_cached_file(name, expected, builder)
        engine = _engine(db_url)
        meta = cls._existing_meta(engine)
        if meta is None:
            meta_built, tables = builder()
            fill(engine, meta_built, tables)
            meta = _read_meta(engine)
        if any(meta.get(k) != v for k, v in expected.items()):
            raise SandboxMismatch(
                f"{db_url} holds the sandbox {meta}, not {expected}; point db_url at an empty database"
            )
        return cls(engine, meta)

    @staticmethod
    def _existing_meta(engine: Engine) -> dict[str, str] | None:
        from sqlalchemy import inspect

        if not inspect(engine).has_table(MetaRow.__tablename__):
            return None
        meta = _read_meta(engine)
        return meta or None

    @classmethod
    def _open_cached_file(
        cls,
        name: str,
        expected: Mapping[str, str],
        builder: Builder,
    ) -> Sandbox:
        folder = cache_dir() / "travelplanner"
        path = folder / f"{name}.sqlite"
        try:
            if not path.exists():
                folder.mkdir(parents=True, exist_ok=True)
                # Build beside the final path and rename: concurrent builders never see half a file.
                fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".sqlite", dir=folder)
                os.close(fd)
                try:
                    engine = _engine(f"sqlite:///{tmp}")
                    meta, tables = builder()
                    fill(engine, meta, tables)
                    engine.dispose()
                    os.chmod(tmp, 0o644)
                    os.replace(tmp, path)
                finally:
                    if os.path.exists(tmp):
                        os.unlink(tmp)
        except OSError:
            # No writable cache: build in memory for this process only.
            engine = _engine("sqlite://")
            meta, tables = builder()
            fill(engine, meta, tables)
            return cls(engine, _read_meta(engine))
        engine = _engine(f"sqlite:///{path}")
        meta = cls._existing_meta(engine) or {}
        if any(meta.get(k) != v for k, v in expected.items()):
            raise SandboxMismatch(f"cached sandbox {path} holds {meta}, expected {expected}; delete it")
        return cls(engine, meta)

    # ------------------------------------------------------------------ queries
    # Statements are built once with bound parameters: SQLAlchemy then reuses their compiled form.
    _FLIGHT_COLUMNS = (
        FlightRow.flight_number,
        FlightRow.price,
        FlightRow.dep_time,
        FlightRow.arr_time,
        FlightRow.elapsed,
        FlightRow.flight_date,
        FlightRow.origin,
        FlightRow.destination,
        FlightRow.distance,
    )
    _FLIGHTS_ON_DAY = (
        select(*_FLIGHT_COLUMNS)
        .where(
            FlightRow.origin == bindparam("origin"),
            FlightRow.destination == bindparam("destination"),
            FlightRow.flight_date == bindparam("day"),
        )
        .order_by(FlightRow.id)
    )
    _FLIGHTS_OF_ROUTE = (
        select(*_FLIGHT_COLUMNS)
        .where(FlightRow.origin == bindparam("origin"), FlightRow.destination == bindparam("destination"))
        .order_by(FlightRow.id)
    )
    _FLIGHTS_NUMBERED = (
        select(*_FLIGHT_COLUMNS).where(FlightRow.flight_number == bindparam("number")).order_by(FlightRow.id)
    )
    _ACCOMMODATIONS = (
        select(
            AccommodationRow.name,
            AccommodationRow.price,
            AccommodationRow.room_type,
            AccommodationRow.house_rules,
            AccommodationRow.minimum_nights,
            AccommodationRow.maximum_occupancy,
            AccommodationRow.review_rate,
            AccommodationRow.city,
        )
        .where(AccommodationRow.city == bindparam("city"))
        .order_by(AccommodationRow.id)
    )
    _RESTAURANTS = (
        select(
            RestaurantRow.name,
            RestaurantRow.average_cost,
            RestaurantRow.cuisines,
            RestaurantRow.rating,
            RestaurantRow.city,
        )
        .where(RestaurantRow.city == bindparam("city"))
        .order_by(RestaurantRow.id)
    )
    _ATTRACTIONS = (
        select(
            AttractionRow.name,
            AttractionRow.latitude,
            AttractionRow.longitude,
            AttractionRow.address,
            AttractionRow.phone,
            AttractionRow.website,
            AttractionRow.city,
        )
        .where(AttractionRow.city == bindparam("city"))
        .order_by(AttractionRow.id)
    )
    _DRIVE = (
        select(DistanceRow.origin, DistanceRow.destination, DistanceRow.duration, DistanceRow.distance)
        .where(DistanceRow.origin == bindparam("origin"), DistanceRow.destination == bindparam("destination"))
        .order_by(DistanceRow.id)
        .limit(1)
    )

    def _rows(self, statement: Any, params: Mapping[str, Any], make: Callable[..., R]) -> tuple[R, ...]:
        if self._lock is None:
            with self.engine.connect() as conn:
                return tuple(make(*row) for row in conn.execute(statement, params))
        with self._lock, self.engine.connect() as conn:
            return tuple(make(*row) for row in conn.execute(statement, params))

    def _flights(self, origin: str, destination: str, flight_date: str) -> tuple[Flight, ...]:
        """Flights of one route on one day, in table order (what FlightSearch shows)."""
        return self._rows(
            self._FLIGHTS_ON_DAY, {"origin": origin, "destination": destination, "day": flight_date}, Flight
        )

    def _route_flights(self, origin: str, destination: str) -> tuple[Flight, ...]:
        """Every flight of a route, all dates (for budget estimates)."""
        return self._rows(self._FLIGHTS_OF_ROUTE, {"origin": origin, "destination": destination}, Flight)

    def _flights_numbered(self, flight_number: str) -> tuple[Flight, ...]:
        return self._rows(self._FLIGHTS_NUMBERED, {"number": flight_number}, Flight)

    def _accommodations(self, city: str) -> tuple[Accommodation, ...]:
        return self._rows(self._ACCOMMODATIONS, {"city": city}, Accommodation)

    def _restaurants(self, city: str) -> tuple[Restaurant, ...]:
        return self._rows(self._RESTAURANTS, {"city": city}, Restaurant)

    def _attractions(self, city: str) -> tuple[Attraction, ...]:
        return self._rows(self._ATTRACTIONS, {"city": city}, Attraction)

    def _drive(self, origin: str, destination: str) -> Drive | None:
        """The distance.csv row for a pair (None when the pair has no row at all)."""
        found = self._rows(self._DRIVE, {"origin": origin, "destination": destination}, Drive)
        return found[0] if found else None

    def counts(self) -> dict[str, int]:
        """Rows per table (for `describe` and the docs)."""
        from sqlalchemy import func

        out: dict[str, int] = {}
        with self.engine.connect() as conn:
            for table in SANDBOX_TABLES:
                if table is MetaRow.__table__:
                    continue
                out[table.name.removeprefix("travelplanner_")] = conn.execute(
                    select(func.count()).select_from(table)
                ).scalar_one()
        return out


_OPEN: dict[tuple[Any, ...], Sandbox] = {}
_OPEN_LOCK = threading.Lock()


def open_sandbox(*, seed: int = 0, database_dir: str | None = None, db_url: str | None = None) -> Sandbox:
    """One Sandbox per (seed, folder, url) per process: modes and splits share it."""
    key = (seed, database_dir and str(Path(database_dir).resolve()), db_url)
    with _OPEN_LOCK:
        if key not in _OPEN:
            _OPEN[key] = Sandbox.open(seed=seed, database_dir=database_dir, db_url=db_url)
        return _OPEN[key]
