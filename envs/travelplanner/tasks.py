"""The task catalogue: generated splits (lazy, per-task deterministic) or official query files.

Task ids are "<split>-<index>" (0-based; the official submission files number queries from 1,
so idx = index + 1). A generated task is built on first use and kept, together with the
expert itinerary that proved it feasible; for official queries the expert plans on demand.

Generated queries: the official element selection and budget, kept only when the expert proves them.

Each task (split, index) draws from its own random stream, so any task is generated alone
and identically in every process. Elements follow the official generator
(utils/query_element_selection.py): consecutive dates in March 2022; a one-city trip goes to a
city in another state, a multi-city trip to a state with more than three cities; easy is one
person and no constraint; medium is 2 or 3-8 people and one of house rule / cuisine (2) /
room type; hard draws three of house rule, cuisine (4), room type, transportation with
probabilities 0.3 / 0.1 / 0.3 / 0.3. The budget is the official estimate for the level. A draw
is kept when its budget can be estimated and the expert's cheapest plan fits in it.
Levels and day counts cycle over the nine (level, days) cells, so each split is balanced.

The natural-language request of a generated query, varied by the query's own random stream.

Every fact the evaluator checks (origin, destination, days, dates, group size, budget, each
local constraint) is stated; only the wording varies.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from coevo.envs.base import UnknownSplit, UnknownTask
from coevo.envs.travelplanner.budget import Unbudgetable, estimate_budgets, level_budget
from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.expert import Itinerary, plan_for
from coevo.envs.travelplanner.queries import DAY_OPTIONS, LEVELS, OFFICIAL_SPLIT_SIZES, Query, load_query_splits
from coevo.envs.travelplanner.sandbox_generator import FIRST_DATE, SCHEDULE_DAYS


_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}

_ONE_CITY = (
    "Please create a travel plan for {who} departing from {org} and heading to {dest} for {days} days, "
    "from {start} to {end}, 2022, with a budget of {budget}.",
    "Could you plan a {days}-day trip for {who} from {org} to {dest}, running from {start} to {end}, 2022? "
    "The budget is {budget}.",
    "I need a {days}-day itinerary for {who}, leaving {org} for {dest} on {start} and returning on {end}, 2022. "
    "Please keep it within {budget}.",
    "Help me put together a trip from {org} to {dest} for {who}: {days} days from {start} to {end}, 2022, "
    "on a budget of {budget}.",
)
_MANY_CITIES = (
    "Please plan a {days}-day trip for {who} from {org} that covers {count} cities in {dest}, "
    "from {start} to {end}, 2022, within a budget of {budget}.",
    "Could you design a {days}-day journey for {who}, starting in {org} and touring {count} cities in {dest} "
    "between {start} and {end}, 2022? We can spend up to {budget}.",
    "I'd like an itinerary for {who} leaving {org} to visit {count} different cities in {dest} over {days} days, "
    "{start} to {end}, 2022, with {budget} to spend in total.",
    "Put together a {days}-day tour of {count} cities in {dest} for {who}, departing from {org} on {start} "
    "and coming back on {end}, 2022. The total budget is {budget}.",
)
_HOUSE_RULE = {
    "parties": "We plan to host a small party, so the accommodations must allow parties.",
    "smoking": "Some of us smoke, so the places we stay must allow smoking.",
    "children under 10": "We are bringing children under 10, so the accommodations must welcome them.",
    "visitors": "We'd like to have visitors over, so the accommodations must allow visitors.",
    "pets": "We are traveling with our pets, so we need pet-friendly accommodations.",
}
_ROOM_TYPE = {
    "shared room": "A shared room is what we want for our stays.",
    "not shared room": "We don't want to share a room with strangers, so no shared rooms please.",
    "private room": "We'd like private rooms for our stays.",
    "entire room": "We'd like an entire home or apartment to ourselves.",
}
_TRANSPORTATION = {
    "no flight": "We'd rather not fly, so please leave flights out of the plan.",
    "no self-driving": "We won't be driving ourselves, so please avoid self-driving.",
}


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def spoken_date(iso: str) -> str:
    """ "2022-03-13" -> "March 13th"."""
    d = date.fromisoformat(iso)
    return f"{d.strftime('%B')} {_ordinal(d.day)}"


def _group(people: int, rng: random.Random) -> str:
    if people == 1:
        return rng.choice(("one person", "me", "a solo traveler"))
    return rng.choice((f"{people} people", f"a group of {_NUMBER_WORDS.get(people, people)}"))


def _join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def query_text(fields: Mapping[str, Any], rng: random.Random) -> str:
    """The request for a query's fields (org, dest, days, date, people_number, budget, ...)."""
    templates = _ONE_CITY if fields["visiting_city_number"] == 1 else _MANY_CITIES
    text = rng.choice(templates).format(
        who=_group(fields["people_number"], rng),
        org=fields["org"],
        dest=fields["dest"],
        days=fields["days"],
        count=_NUMBER_WORDS.get(fields["visiting_city_number"], fields["visiting_city_number"]),
        start=spoken_date(fields["date"][0]),
        end=spoken_date(fields["date"][-1]),
        budget=f"${fields['budget']:,}",
    )
    constraint = fields["local_constraint"]
    extra: list[str] = []
    if constraint.get("house rule"):
        extra.append(_HOUSE_RULE[constraint["house rule"]])
    if constraint.get("room type"):
        extra.append(_ROOM_TYPE[constraint["room type"]])
    if constraint.get("cuisine"):
        extra.append(f"During the trip we'd like to try {_join(list(constraint['cuisine']))} cuisines.")
    if constraint.get("transportation"):
        extra.append(_TRANSPORTATION[constraint["transportation"]])
    rng.shuffle(extra)
    return " ".join([text, *extra])


CELLS: tuple[tuple[str, int], ...] = tuple((level, days) for level in LEVELS for days in DAY_OPTIONS)
VISITING_CITIES = {3: 1, 5: 2, 7: 3}
CUISINE_CHOICES = ("Chinese", "American", "Italian", "Mexican", "Indian", "Mediterranean", "French")
HOUSE_RULE_CHOICES = ("parties", "smoking", "children under 10", "visitors", "pets")
MAX_DRAWS = 5000


class GenerationFailed(RuntimeError):
    """No feasible query was found for a task within MAX_DRAWS draws (a sandbox too sparse)."""


@dataclass(frozen=True)
class GeneratedTask:
    query: Query
    itinerary: Itinerary
    draws: int


def cell_of(index: int) -> tuple[str, int]:
    return CELLS[index % len(CELLS)]


def _dates(rng: random.Random, days: int) -> tuple[str, ...]:
    start = rng.randint(0, SCHEDULE_DAYS - days)
    return tuple((FIRST_DATE + timedelta(days=start + i)).isoformat() for i in range(days))


def _org_dest(rng: random.Random, db: Sandbox, days: int) -> tuple[str, str]:
    pairs = list(db.city_state.items())
    org, org_state = rng.choice(pairs)
    while True:
        dest, dest_state = rng.choice(pairs)
        if dest_state == org_state:
            continue
        if days == 3:
            return org, dest
        if len(db.state_cities[dest_state]) > 3:
            return org, dest_state


def _people(rng: random.Random) -> int:
    return rng.choice(rng.choice(([2], [3, 4, 5, 6, 7, 8])))


def _room_type(rng: random.Random, people: int) -> str:
    if people <= 2:
        return rng.choice(("shared room", "not shared room", "private room", "entire room"))
    return rng.choice(("private room", "entire room"))


def _weighted_sample(rng: random.Random, items: Sequence[str], weights: Sequence[float], k: int) -> list[str]:
    """k distinct items, each draw proportional to the remaining weights (numpy's rule)."""
    items, weights = list(items), list(weights)
    picked: list[str] = []
    for _ in range(k):
        choice = rng.choices(range(len(items)), weights=weights)[0]
        picked.append(items.pop(choice))
        weights.pop(choice)
    return picked


def _constraints(rng: random.Random, level: str, people: int) -> dict[str, Any]:
    constraint: dict[str, Any] = {"house rule": None, "cuisine": None, "room type": None, "transportation": None}
    if level == "medium":
        kinds = [rng.choice(("house rule", "cuisine", "room type"))]
    elif level == "hard":
        kinds = _weighted_sample(rng, ("house rule", "cuisine", "room type", "transportation"), (0.3, 0.1, 0.3, 0.3), 3)
    else:
        kinds = []
    for kind in kinds:
        if kind == "room type":
            constraint[kind] = _room_type(rng, people)
        elif kind == "house rule":
            constraint[kind] = rng.choice(HOUSE_RULE_CHOICES)
        elif kind == "cuisine":
            constraint[kind] = rng.sample(CUISINE_CHOICES, 2 if level == "medium" else 4)
        else:
            constraint[kind] = rng.choice(("no flight", "no self-driving"))
    return constraint


def _draw(rng: random.Random, db: Sandbox, level: str, days: int) -> GeneratedTask | None:
    dates = _dates(rng, days)
    org, dest = _org_dest(rng, db, days)
    people = 1 if level == "easy" else _people(rng)
    constraint = _constraints(rng, level, people)
    try:
        budgets = estimate_budgets(
            db,
            org,
            dest,
            days,
            dates,
            people=None if level == "easy" else people,
            local_constraint=constraint if level == "hard" else None,
        )
    except Unbudgetable:
        return None
    budget = level_budget(level, days, people, budgets)
    fields: dict[str, Any] = {
        "org": org,
        "dest": dest,
        "days": days,
        "visiting_city_number": VISITING_CITIES[days],
        "date": list(dates),
        "people_number": people,
        "local_constraint": constraint,
        "budget": budget,
        "level": level,
    }
    fields["query"] = query_text(fields, rng)
    query = Query.from_record(fields)
    itinerary = plan_for(query, db)
    if itinerary is None or itinerary.cost > budget or budget <= 0:
        return None
    return GeneratedTask(query=query, itinerary=itinerary, draws=0)


def generate_task(db: Sandbox, seed: int, split: str, index: int) -> GeneratedTask:
    """The query of task `index` of `split`, and the expert itinerary that proves it feasible."""
    level, days = cell_of(index)
    rng = random.Random(f"travelplanner-query/{seed}/{split}/{index}")
    for draw in range(1, MAX_DRAWS + 1):
        task = _draw(rng, db, level, days)
        if task is not None:
            return GeneratedTask(task.query, task.itinerary, draw)
    raise GenerationFailed(f"no feasible {level} {days}-day query for {split}-{index} in {MAX_DRAWS} draws")


@dataclass(frozen=True)
class Task:
    task_id: str
    split: str
    index: int
    query: Query
    itinerary: Itinerary | None


def parse_split_sizes(value: Mapping[str, Any] | str | None) -> dict[str, int]:
    """{"train": 45, ...} from a mapping or "train=45,validation=180,test=1000"."""
    if value is None:
        return dict(OFFICIAL_SPLIT_SIZES)
    if isinstance(value, str):
        pairs = [item.split("=", 1) for item in value.split(",") if item.strip()]
        if any(len(p) != 2 for p in pairs):
            raise ValueError(f"split_sizes must look like 'train=45,validation=180', got {value!r}")
        value = {k.strip(): v.strip() for k, v in pairs}
    sizes = {str(k): int(v) for k, v in value.items()}
    if any(n < 0 for n in sizes.values()):
        raise ValueError("split sizes must be non-negative")
    return sizes


def split_task_id(task_id: str) -> tuple[str, int]:
    split, _, index = task_id.rpartition("-")
    if not split or not index.isdigit():
        raise UnknownTask(f"unknown task id {task_id!r}")
    return split, int(index)


class TaskStore:
    """Splits and tasks of one env configuration, shared read-only by every session."""

    def __init__(
        self,
        db: Sandbox,
        *,
        seed: int = 0,
        split_sizes: Mapping[str, int] | None = None,
        queries: str | None = None,
    ) -> None:
        self.db = db
        self.seed = seed
        self.official: dict[str, list[Query]] | None = load_query_splits(queries) if queries else None
        if self.official is not None:
            self.sizes = {name: len(items) for name, items in self.official.items()}
        else:
            self.sizes = dict(split_sizes or OFFICIAL_SPLIT_SIZES)
        self._tasks: dict[str, Task] = {}
        self._lock = threading.Lock()

    def locate(self, task_id: str) -> tuple[str, int]:
        split, index = split_task_id(task_id)
        if split not in self.sizes or index >= self.sizes[split]:
            raise UnknownTask(f"unknown task id {task_id!r}")
        return split, index

    def ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        if split not in self.sizes:
            raise UnknownSplit(f"unknown split {split!r}; known: {sorted(self.sizes)}")
        stop = self.sizes[split] if limit is None else min(self.sizes[split], offset + limit)
        return [f"{split}-{i}" for i in range(max(offset, 0), stop)]

    def describe(self, task_id: str) -> dict[str, Any]:
        """Level and day count without generating the task (cheap enough for listings)."""
        split, index = self.locate(task_id)
        if self.official is not None:
            query = self.official[split][index]
            return {"level": query.level, "days": query.days}
        level, days = cell_of(index)
        return {"level": level, "days": days}

    def get(self, task_id: str) -> Task:
        split, index = self.locate(task_id)
        with self._lock:
            cached = self._tasks.get(task_id)
        if cached is not None:
            return cached
        if self.official is not None:
            query = self.official[split][index]
            task = Task(task_id, split, index, query, plan_for(query, self.db))
        else:
            generated = generate_task(self.db, self.seed, split, index)
            task = Task(task_id, split, index, generated.query, generated.itinerary)
        with self._lock:
            return self._tasks.setdefault(task_id, task)
