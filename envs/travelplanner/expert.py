"""The expert: a planner that finds the cheapest itinerary satisfying every check, from the sandbox.

It fixes the official itinerary shape (leave on day 1, a leg every `nights` days, home on the
last day), then searches every ordered choice of cities in the destination state for the
cheapest combination of
- transport: all self-driving, or per leg the cheaper of the day's cheapest flight and a taxi
  (self-driving never mixes with flights or taxis: that is the "non-conflicting" rule), within
  the query's transportation constraint;
- a stay per city: the cheapest listing for the group that satisfies the room-type and
  house-rule constraints and whose minimum nights fit the stay;
- meals: three distinct restaurants on every full day, plus travel-day meals when the cuisine
  constraint needs them, chosen greedily to cover the wanted cuisines at the least cost.
With budget left over it adds travel-day meals, and it fills attractions (free) on every day.
The cost it optimises is the official budget rule, so the plan it returns passes every
commonsense check and hard constraint whenever its cost is within the budget; the generator
keeps only such queries, which is how a feasible plan is proven to exist for each.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

from coevo.envs.travelplanner.commonsense import drive_cost
from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.hard import FORBIDDING_RULE, ROOM_TYPE_OK
from coevo.envs.travelplanner.queries import Query
from coevo.envs.travelplanner.records import Accommodation, Drive, Flight, Restaurant

MEALS = ("breakfast", "lunch", "dinner")


@dataclass(frozen=True)
class Leg:
    origin: str
    destination: str
    date: str
    mode: str  # "flight" | "self-driving" | "taxi"
    cost: float
    flight: Flight | None = None
    drive: Drive | None = None

    def transportation(self) -> str:
        """The plan's transportation field, in the form the official annotations use."""
        if self.flight is not None:
            f = self.flight
            return (
                f"Flight Number: {f.flight_number}, from {self.origin} to {self.destination}, "
                f"Departure Time: {f.dep_time}, Arrival Time: {f.arr_time}"
            )
        assert self.drive is not None and self.drive.kilometres is not None
        per_car = int(self.drive.kilometres * (0.05 if self.mode == "self-driving" else 1))
        label = "Self-driving" if self.mode == "self-driving" else "Taxi"
        return (
            f"{label}, from {self.origin} to {self.destination}, duration: {self.drive.duration}, "
            f"distance: {self.drive.distance}, cost: {per_car}"
        )


@dataclass(frozen=True)
class Itinerary:
    """The expert's answer: the plan records and how it got them."""

    cities: tuple[str, ...]
    legs: tuple[Leg, ...]
    stays: tuple[Accommodation, ...]
    days: tuple[dict[str, Any], ...]
    cost: float

    def plan(self) -> list[dict[str, Any]]:
        return [dict(day) for day in self.days]


@dataclass(frozen=True)
class _Route:
    """A choice of cities with its transport and stays; `floor` bounds its total cost from below."""

    floor: float
    cities: tuple[str, ...]
    legs: tuple[Leg, ...]
    stays: tuple[Accommodation, ...]
    fixed: float


@dataclass(frozen=True)
class _Slot:
    day: int
    meal: str
    city: str
    required: bool


class ExpertPlanner:
    """Cheapest valid itinerary for one query (construct per query; lookups are cached by the DB)."""

    def __init__(self, query: Query, db: Sandbox) -> None:
        self.query = query
        self.db = db
        self.people = query.people_number
        self.count = query.visiting_city_number
        self.nights = _nights(query.days, self.count)
        self.leg_days = _leg_days(self.nights)
        rule = query.constraint("transportation")
        self.allow_flight = rule != "no flight"
        self.allow_driving = rule != "no self-driving"
        self._legs: dict[tuple[str, str, str], dict[str, Leg]] = {}
        self._stays: dict[tuple[str, int], Accommodation | None] = {}
        self._menus: dict[str, list[Restaurant]] = {}

    # ----------------------------------------------------------------- search
    def candidates(self) -> list[str]:
        """The destination city of a one-city trip, else the cities of the destination state."""
        dest = self.query.dest
        if dest in self.db.city_state and (self.query.days <= 3 or dest not in self.db.state_cities):
            return [dest]
        return [c for c in self.db.state_cities.get(dest, []) if c != self.query.org]

    def best(self) -> Itinerary | None:
        """The cheapest itinerary over every route, or None when no route can be planned."""
        options: list[_Route] = []
        for route in permutations(self.candidates(), self.count):
            found = [self._stay(city, nights) for city, nights in zip(route, self.nights)]
            stays = [s for s in found if s is not None]
            transport = self._transport(route)
            if len(stays) < len(found) or transport is None:
                continue
            legs, transport_cost = transport
            fixed = transport_cost + sum(self._stay_cost(s) * n for s, n in zip(stays, self.nights))
            floor = fixed + sum(self._cheapest_meals(c, n) for c, n in zip(route, self.nights))
            options.append(_Route(floor, route, legs, tuple(stays), fixed))
        options.sort(key=lambda o: (o.floor, o.cities))
        best: tuple[float, _Route, dict[_Slot, Restaurant]] | None = None
        for option in options:
            if best is not None and option.floor >= best[0]:
                break  # floors are lower bounds: nothing later can be cheaper
            meals = self._meals(option.cities)
            if meals is None:
                continue
            total = option.fixed + sum(r.average_cost * self.people for r in meals.values())
            if best is None or total < best[0]:
                best = (total, option, meals)
        if best is None:
            return None
        total, option, meals = best
        return self._itinerary(option.cities, option.legs, list(option.stays), meals, total)

    def _stay(self, city: str, nights: int) -> Accommodation | None:
        if (city, nights) not in self._stays:
            self._stays[(city, nights)] = self._cheapest_stay(city, nights)
        return self._stays[(city, nights)]

    def _cheapest_stay(self, city: str, nights: int) -> Accommodation | None:
        rule = self.query.constraint("house rule")
        room = self.query.constraint("room type")
        valid = [
            a
            for a in self.db.accommodations(city)
            if a.minimum_nights <= nights
            and (rule is None or FORBIDDING_RULE.get(rule, "\0") not in a.house_rules)
            and (room is None or ROOM_TYPE_OK.get(room, lambda _: True)(a.room_type))
            and _unique(a.name, [b.name for b in self.db.accommodations(city)])
        ]
        return min(valid, key=self._stay_cost, default=None)

    def _stay_cost(self, stay: Accommodation) -> float:
        return stay.price * math.ceil(self.people / stay.maximum_occupancy)

    def _route_legs(self, route: Sequence[str]) -> list[tuple[str, str, str]]:
        stops = [self.query.org, *route, self.query.org]
        return [(stops[i], stops[i + 1], self.query.date[day]) for i, day in enumerate(self.leg_days)]

    def _leg_options(self, origin: str, destination: str, day: str) -> dict[str, Leg]:
        key = (origin, destination, day)
        if key not in self._legs:
            options: dict[str, Leg] = {}
            if self.allow_flight:
                flights = self.db.flights(origin, destination, day)
                if flights:
                    cheapest = min(flights, key=lambda f: f.price)
                    options["flight"] = Leg(
                        origin, destination, day, "flight", cheapest.price * self.people, flight=cheapest
                    )
            drive = self.db.drive(origin, destination)
            taxi = drive_cost(self.db, origin, destination, "taxi")
            if taxi is not None and drive is not None:
                options["taxi"] = Leg(origin, destination, day, "taxi", taxi * math.ceil(self.people / 4), drive=drive)
            own = drive_cost(self.db, origin, destination, "self-driving")
            if self.allow_driving and own is not None and drive is not None:
                options["self-driving"] = Leg(
                    origin, destination, day, "self-driving", own * math.ceil(self.people / 5), drive=drive
                )
            self._legs[key] = options
        return self._legs[key]

    def _transport(self, route: Sequence[str]) -> tuple[tuple[Leg, ...], float] | None:
        per_leg = [self._leg_options(*leg) for leg in self._route_legs(route)]
        choices: list[tuple[float, tuple[Leg, ...]]] = []
        if all("self-driving" in options for options in per_leg):
            legs = tuple(options["self-driving"] for options in per_leg)
            choices.append((sum(leg.cost for leg in legs), legs))
        public: list[Leg] = []
        for options in per_leg:
            found = [options[m] for m in ("flight", "taxi") if m in options]
            if not found:
                break
            public.append(min(found, key=lambda leg: leg.cost))
        else:
            choices.append((sum(leg.cost for leg in public), tuple(public)))
        if not choices:
            return None
        cost, legs = min(choices, key=lambda c: c[0])
        return legs, cost

    # ----------------------------------------------------------------- meals
    def _restaurants(self, city: str) -> list[Restaurant]:
        """The city's restaurants the evaluator can tell apart, cheapest first."""
        if city not in self._menus:
            pool = self.db.restaurants(city)
            names = [r.name for r in pool]
            self._menus[city] = sorted((r for r in pool if _unique(r.name, names)), key=lambda r: r.average_cost)
        return self._menus[city]

    def _cheapest_meals(self, city: str, nights: int) -> float:
        need = 3 * (nights - 1)
        return sum(r.average_cost for r in self._restaurants(city)[:need]) * self.people

    def _slots(self, route: Sequence[str]) -> list[_Slot]:
        """Meal slots by day: required on full days, optional on travel days (never at home)."""
        slots: list[_Slot] = []
        stops = [self.query.org, *route, self.query.org]
        leg_index = {day: i for i, day in enumerate(self.leg_days)}
        city_of_day: list[str] = []
        here = self.query.org
        for day in range(self.query.days):
            if day in leg_index:
                here = stops[leg_index[day] + 1]
            city_of_day.append(here)
        for day in range(self.query.days):
            if day in leg_index:
                origin, destination = stops[leg_index[day]], stops[leg_index[day] + 1]
                for meal in MEALS:
                    city = origin if meal == "breakfast" else destination
                    if meal == "lunch" and destination == self.query.org:
                        city = origin
                    if city != self.query.org:
                        slots.append(_Slot(day, meal, city, False))
            else:
                slots.extend(_Slot(day, meal, city_of_day[day], True) for meal in MEALS)
        return slots

    def _meals(self, route: Sequence[str]) -> dict[_Slot, Restaurant] | None:
        """Least-cost restaurants for the required slots that cover the wanted cuisines."""
        slots = self._slots(route)
        wanted = set(self.query.constraint("cuisine") or ())
        chosen: dict[str, list[Restaurant]] = {}
        for city in route:
            need = sum(1 for s in slots if s.city == city and s.required)
            pool = self._restaurants(city)
            if len(pool) < need:
                return None
            chosen[city] = pool[:need]
        capacity = {city: sum(1 for s in slots if s.city == city) for city in route}

        def covered() -> set[str]:
            return {c for rs in chosen.values() for r in rs for c in wanted if c in r.cuisines}

        while wanted - covered():
            have = covered()
            best: tuple[float, str, Restaurant | None, Restaurant] | None = None
            for city in route:
                taken = {r.name for r in chosen[city]}
                for new in self._restaurants(city):
                    if new.name in taken:
                        continue
                    gain_set = {c for c in wanted - have if c in new.cuisines}
                    if not gain_set:
                        continue
                    moves: list[tuple[float, Restaurant | None]] = []
                    if len(chosen[city]) < capacity[city]:
                        moves.append((new.average_cost, None))
                    for old in chosen[city]:
                        rest = [r for r in chosen[city] if r is not old] + [
                            r for c2, rs in chosen.items() if c2 != city for r in rs
                        ]
                        keeps = {c for r in rest for c in wanted if c in r.cuisines} | gain_set
                        if have <= keeps:
                            moves.append((new.average_cost - old.average_cost, old))
                    for delta, dropped in moves:
                        score = delta / len(gain_set)
                        if best is None or score < best[0]:
                            best = (score, city, dropped, new)
            if best is None:
                return None
            _, city, dropped, new = best
            if dropped is not None:
                chosen[city].remove(dropped)
            chosen[city].append(new)
        return self._assign(slots, chosen)

    @staticmethod
    def _assign(slots: list[_Slot], chosen: dict[str, list[Restaurant]]) -> dict[_Slot, Restaurant] | None:
        """Required slots first, then travel-day slots, each city's restaurants in cost order."""
        assignment: dict[_Slot, Restaurant] = {}
        for city, restaurants in chosen.items():
            queue = sorted(restaurants, key=lambda r: r.average_cost)
            ordered = [s for s in slots if s.city == city and s.required] + [
                s for s in slots if s.city == city and not s.required
            ]
            if len(queue) > len(ordered):
                return None
            for slot, restaurant in zip(ordered, queue):
                assignment[slot] = restaurant
        return assignment

    # ----------------------------------------------------------------- the plan
    def _itinerary(
        self,
        route: tuple[str, ...],
        legs: tuple[Leg, ...],
        stays: list[Accommodation],
        meals: dict[_Slot, Restaurant],
        total: float,
    ) -> Itinerary:
        slots = self._slots(route)
        # Spend what the budget leaves on travel-day meals, cheapest first.
        used = {(r.name, r.city) for r in meals.values()}
        for slot in slots:
            if slot in meals:
                continue
            spare = [r for r in self._restaurants(slot.city) if (r.name, r.city) not in used]
            if spare and total + spare[0].average_cost * self.people <= self.query.budget:
                meals[slot] = spare[0]
                used.add((spare[0].name, spare[0].city))
                total += spare[0].average_cost * self.people
        stops = [self.query.org, *route, self.query.org]
        leg_at = dict(zip(self.leg_days, legs))
        stay_of = dict(zip(route, stays))
        attractions = {city: self._attraction_names(city) for city in route}
        days: list[dict[str, Any]] = []
        here = self.query.org
        stop = 0
        for day in range(self.query.days):
            leg = leg_at.get(day)
            if leg is not None:
                stop += 1
                current = f"from {leg.origin} to {leg.destination}"
                here = leg.destination
                visit_city = leg.destination if leg.destination != self.query.org else leg.origin
                wanted_sights = 1
            else:
                current = here
                visit_city = here
                wanted_sights = 2
            sights = [attractions[visit_city].pop(0) for _ in range(min(wanted_sights, len(attractions[visit_city])))]
            record: dict[str, Any] = {
                "days": day + 1,
                "current_city": current,
                "transportation": leg.transportation() if leg is not None else "-",
            }
            for meal in MEALS:
                restaurant = meals.get(_find_slot(slots, day, meal))
                record[meal] = f"{restaurant.name}, {restaurant.city}" if restaurant else "-"
            record["attraction"] = "".join(f"{name}, {visit_city};" for name in sights) or "-"
            sleeping = stops[stop] if day < self.query.days - 1 else None
            stay = stay_of.get(sleeping) if sleeping else None
            record["accommodation"] = f"{stay.name}, {stay.city}" if stay else "-"
            days.append(
                {
                    key: record[key]
                    for key in (
                        "days",
                        "current_city",
                        "transportation",
                        "breakfast",
                        "attraction",
                        "lunch",
                        "dinner",
                        "accommodation",
                    )
                }
            )
        return Itinerary(route, legs, tuple(stays), tuple(days), total)

    def _attraction_names(self, city: str) -> list[str]:
        names = [a.name for a in self.db.attractions(city)]
        return [n for n in names if _unique(n, names) and ";" not in n]


def _find_slot(slots: list[_Slot], day: int, meal: str) -> _Slot:
    for slot in slots:
        if slot.day == day and slot.meal == meal:
            return slot
    return _Slot(day, meal, "", False)


def _unique(name: str, names: Sequence[str]) -> bool:
    """A name the evaluator's substring match resolves to this row alone."""
    return "\n" not in name and sum(1 for other in names if name in other) == 1


def _nights(days: int, cities: int) -> list[int]:
    """Nights per visited city: days - 1 nights spread as evenly as possible, earlier first."""
    total = days - 1
    base, extra = divmod(total, max(cities, 1))
    return [base + (1 if i < extra else 0) for i in range(cities)]


def _leg_days(nights: Sequence[int]) -> list[int]:
    """0-based days on which the trip moves: day 0, after each stay, and the last day."""
    days, day = [0], 0
    for n in nights:
        day += n
        days.append(day)
    return days


def plan_for(query: Query, db: Sandbox) -> Itinerary | None:
    return ExpertPlanner(query, db).best()
