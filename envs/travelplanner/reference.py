"""Reference information for sole-planning mode, in the official `reference_information` form.

The official dataset lists, for the cities and legs of the annotated itinerary, the
attractions, restaurants and accommodations of each city, then for each leg the day's flights
and the self-driving and taxi answers, as a Python list of {'Description', 'Content'}
records whose contents are the tools' outputs. Generated tasks get the same list for the
expert's itinerary; an official query file's own reference_information is used as given.
"""

from __future__ import annotations

from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.expert import Itinerary
from coevo.envs.travelplanner.queries import Query
from coevo.envs.travelplanner.records import Accommodation, Attraction, Flight, Restaurant
from coevo.envs.travelplanner.tables import render_table
from coevo.envs.travelplanner.tools import distance_text


def _table_or(columns: tuple[str, ...], rows: tuple, empty: str) -> str:
    return render_table(columns, rows) if rows else empty


def reference_entries(query: Query, itinerary: Itinerary | None, db: Sandbox) -> list[dict[str, str]]:
    if itinerary is not None:
        cities = list(itinerary.cities)
        legs = [(leg.origin, leg.destination, leg.date) for leg in itinerary.legs]
    else:  # no feasible itinerary: the destination's cities, there and back
        cities = [query.dest] if query.dest in db.city_state else list(db.state_cities.get(query.dest, []))
        legs = [(query.org, cities[0], query.date[0]), (cities[-1], query.org, query.date[-1])] if cities else []
    entries: list[dict[str, str]] = []
    for city in cities:
        entries.append(
            {
                "Description": f"Attractions in {city}",
                "Content": _table_or(Attraction.COLUMNS, db.attractions(city), "There is no attraction in this city."),
            }
        )
        entries.append(
            {
                "Description": f"Restaurants in {city}",
                "Content": _table_or(Restaurant.COLUMNS, db.restaurants(city), "There is no restaurant in this city."),
            }
        )
        entries.append(
            {
                "Description": f"Accommodations in {city}",
                "Content": _table_or(
                    Accommodation.COLUMNS, db.accommodations(city), "There is no attraction in this city."
                ),
            }
        )
    for origin, destination, day in legs:
        entries.append(
            {
                "Description": f"Flight from {origin} to {destination} on {day}",
                "Content": _table_or(
                    Flight.COLUMNS,
                    db.flights(origin, destination, day),
                    f"There is no flight from {origin} to {destination} on {day}.",
                ),
            }
        )
        entries.append(
            {
                "Description": f"Self-driving from {origin} to {destination}",
                "Content": distance_text(db, origin, destination, "self-driving"),
            }
        )
        entries.append(
            {
                "Description": f"Taxi from {origin} to {destination}",
                "Content": distance_text(db, origin, destination, "taxi"),
            }
        )
    return entries


def reference_information(query: Query, itinerary: Itinerary | None, db: Sandbox) -> str:
    """The text a sole-planning agent is given (the official field when the query has one)."""
    if query.reference_information:
        return query.reference_information
    return str(reference_entries(query, itinerary, db))
