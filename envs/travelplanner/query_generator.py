"""Generated queries: the official element selection and budget, kept only when the expert proves them.

Each task (split, index) draws from its own random stream, so any task is generated alone
and identically in every process. Elements follow the official generator
(utils/query_element_selection.py): consecutive dates in March 2022; a one-city trip goes to a
city in another state, a multi-city trip to a state with more than three cities; easy is one
person and no constraint; medium is 2 or 3-8 people and one of house rule / cuisine (2) /
room type; hard draws three of house rule, cuisine (4), room type, transportation with
probabilities 0.3 / 0.1 / 0.3 / 0.3. The budget is the official estimate for the level. A draw
is kept when its budget can be estimated and the expert's cheapest plan fits in it.
Levels and day counts cycle over the nine (level, days) cells, so each split is balanced.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from coevo.envs.travelplanner.budget import Unbudgetable, estimate_budgets, level_budget
from coevo.envs.travelplanner.database import Sandbox
from coevo.envs.travelplanner.expert import Itinerary, plan_for
from coevo.envs.travelplanner.queries import DAY_OPTIONS, LEVELS, Query
from coevo.envs.travelplanner.query_text import query_text
from coevo.envs.travelplanner.sandbox_generator import FIRST_DATE, SCHEDULE_DAYS

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
            db, org, dest, days, dates,
            people=None if level == "easy" else people,
            local_constraint=constraint if level == "hard" else None,
        )
    except Unbudgetable:
        return None
    budget = level_budget(level, days, people, budgets)
    fields: dict[str, Any] = {
        "org": org, "dest": dest, "days": days, "visiting_city_number": VISITING_CITIES[days],
        "date": list(dates), "people_number": people, "local_constraint": constraint,
        "budget": budget, "level": level,
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
