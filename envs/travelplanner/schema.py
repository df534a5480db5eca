"""The sandbox tables, with TravelPlanner's official column names.

They live on their own declarative base so that creating coevo's store tables never creates
(or touches) a sandbox, and a sandbox database can be a separate SQLite file or PostgreSQL
schema. Attribute names are Python-friendly; the column names are the official CSV headers,
so a table dumped with SQL reads like the original CSV file.
"""

from __future__ import annotations

from typing import ClassVar

from sqlalchemy import Float, Index, Integer, String, Table, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class SandboxBase(DeclarativeBase):
    """Tables of one TravelPlanner sandbox (flights, hotels, restaurants, ...)."""

    #: SQLAlchemy types `__table__` as any FromClause; every class here maps a plain Table.
    __table__: ClassVar[Table]


class FlightRow(SandboxBase):
    __tablename__ = "travelplanner_flights"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    flight_number: Mapped[str] = mapped_column("Flight Number", String(32), index=True)
    price: Mapped[int] = mapped_column("Price", Integer)
    dep_time: Mapped[str] = mapped_column("DepTime", String(8))
    arr_time: Mapped[str] = mapped_column("ArrTime", String(8))
    elapsed: Mapped[str] = mapped_column("ActualElapsedTime", String(32))
    flight_date: Mapped[str] = mapped_column("FlightDate", String(10))
    origin: Mapped[str] = mapped_column("OriginCityName", String(128))
    destination: Mapped[str] = mapped_column("DestCityName", String(128))
    distance: Mapped[float] = mapped_column("Distance", Float)

    __table_args__ = (Index("ix_travelplanner_flights_route", "OriginCityName", "DestCityName", "FlightDate"),)


class AccommodationRow(SandboxBase):
    __tablename__ = "travelplanner_accommodations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column("NAME", Text)
    price: Mapped[float] = mapped_column("price", Float)
    room_type: Mapped[str] = mapped_column("room type", String(32))
    house_rules: Mapped[str] = mapped_column("house_rules", Text)
    minimum_nights: Mapped[float] = mapped_column("minimum nights", Float)
    maximum_occupancy: Mapped[int] = mapped_column("maximum occupancy", Integer)
    review_rate: Mapped[float] = mapped_column("review rate number", Float)
    city: Mapped[str] = mapped_column("city", String(128), index=True)


class RestaurantRow(SandboxBase):
    __tablename__ = "travelplanner_restaurants"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column("Name", Text)
    average_cost: Mapped[int] = mapped_column("Average Cost", Integer)
    cuisines: Mapped[str] = mapped_column("Cuisines", Text)
    rating: Mapped[float] = mapped_column("Aggregate Rating", Float)
    city: Mapped[str] = mapped_column("City", String(128), index=True)


class AttractionRow(SandboxBase):
    __tablename__ = "travelplanner_attractions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column("Name", Text)
    latitude: Mapped[float] = mapped_column("Latitude", Float)
    longitude: Mapped[float] = mapped_column("Longitude", Float)
    address: Mapped[str] = mapped_column("Address", Text)
    phone: Mapped[str] = mapped_column("Phone", String(64))
    website: Mapped[str] = mapped_column("Website", Text)
    city: Mapped[str] = mapped_column("City", String(128), index=True)


class DistanceRow(SandboxBase):
    """Driving distance between two cities; both values empty when no road is known."""

    __tablename__ = "travelplanner_distances"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    origin: Mapped[str] = mapped_column("origin", String(128))
    destination: Mapped[str] = mapped_column("destination", String(128))
    duration: Mapped[str | None] = mapped_column("duration", String(64), nullable=True)
    distance: Mapped[str | None] = mapped_column("distance", String(64), nullable=True)

    __table_args__ = (Index("ix_travelplanner_distances_pair", "origin", "destination"),)


class CityRow(SandboxBase):
    """One line of the official citySet_with_states.txt."""

    __tablename__ = "travelplanner_cities"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    city: Mapped[str] = mapped_column("city", String(128), index=True)
    state: Mapped[str] = mapped_column("state", String(128), index=True)


class MetaRow(SandboxBase):
    """Where the sandbox came from (generated with a seed, or imported from a folder)."""

    __tablename__ = "travelplanner_meta"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


SANDBOX_TABLES = [
    FlightRow.__table__,
    AccommodationRow.__table__,
    RestaurantRow.__table__,
    AttractionRow.__table__,
    DistanceRow.__table__,
    CityRow.__table__,
    MetaRow.__table__,
]
