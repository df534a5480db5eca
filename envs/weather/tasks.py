"""Weather's tasks: generated questions of the kinds in data/templates.json (answers solved on
the sandbox by the expert), and AgentBoard's `weather.jsonl` loaded from a directory.

A loaded question the loader recognises (data/templates.json "recognise") gets the world's day
pinned so the tools return the file's answer, and a plan; any other keeps the generated world,
and the expert has no plan for it (bench/weather.py lists those).
"""

from __future__ import annotations

import json
import random
import re
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.tasks import ToolTask, read_agentboard, task_from_row
from coevo.envs.weather import expert
from coevo.envs.weather.toolkit import WeatherToolkit, today
from coevo.envs.weather.world import DATA, City, WeatherWorld, load_cities, seeded_rng

TEMPLATES: dict[str, Any] = json.loads((DATA / "templates.json").read_text(encoding="utf-8"))
#: AgentGym's Weather file has 343 tasks; the generated test split has as many.
AGENTGYM_TASKS = 343
_FIRST_DAY = date(2015, 1, 1)
_DAYS = 3650


def _toolkit(specs: tuple[ToolSpec, ...], world: WeatherWorld, current: str, location: str) -> WeatherToolkit:
    return WeatherToolkit(specs, world, current, location)


def generate(specs: tuple[ToolSpec, ...], world: WeatherWorld, split: str, count: int, seed: int) -> list[ToolTask]:
    """`count` questions cycling through the kinds, each solved on `world`. The held-out split
    (`test`) asks about every other city of the list, the others about the rest, so the two
    never share a question's text."""
    rng = random.Random(f"weather|{split}|{seed}")
    kinds = sorted(TEMPLATES["templates"])
    known = world.cities[: len(load_cities())]  # a loaded file's added places stay out
    cities = known[0::2] if split == "test" else known[1::2]
    cold = [c for c in cities if c.mean < 12 and c.latitude > 0] or cities
    tasks = []
    for index in range(count):
        kind = kinds[index % len(kinds)]
        home = rng.choice(cities)
        now = _FIRST_DAY + timedelta(days=rng.randrange(_DAYS))
        if kind == "snow_next_days":  # a winter day in a cold city, so snow is likely
            home = rng.choice(cold)
            now = date(rng.randint(2015, 2024), rng.choice([1, 2, 12]), rng.randint(1, 28))
        if now.month == 2 and now.day == 29:
            now -= timedelta(days=1)  # "this day last year" must exist
        other = rng.choice([c for c in cities if c.name != home.name])
        params = {"home": home.name, "city": other.name, "date": (now + timedelta(days=rng.randint(2, 20))).isoformat()}
        goal = TEMPLATES["templates"][kind].format(**params)
        toolkit = _toolkit(specs, world, now.isoformat(), home.name)
        answer, plan = expert.solve(kind, toolkit, params)
        tasks.append(
            ToolTask(
                task_id=f"{split}-{index}",
                goal=goal,
                subgoals=(answer,),
                answer=answer,
                init_config={"current_date": now.isoformat(), "current_location": home.name},
                goal_type=0,
                kind=kind,
                plan=tuple(plan),
                index=index,
            )
        )
    return tasks


def _recognise(goal: str) -> str | None:
    for kind, pattern in TEMPLATES["recognise"].items():
        if re.search(pattern, goal, re.IGNORECASE):
            return str(kind)
    return None


#: Per recognised kind: the day (relative to the current date) and the value the answer is.
_PINS = {
    "mean_yesterday": (lambda now: now - timedelta(days=1), "temperature_2m_mean"),
    "max_last_year": (lambda now: now.replace(year=now.year - 1), "temperature_2m_max"),
    "min_today": (lambda now: now, "temperature_2m_min"),
    "mean_tomorrow": (lambda now: now + timedelta(days=1), "temperature_2m_mean"),
}


def _place(world: WeatherWorld, name: str) -> City:
    """The city of a loaded task's location: known, or added with made-up coordinates."""
    found = world.city(name)
    if found is not None:
        return found
    rng = seeded_rng("place", name)
    city = City(name, round(rng.uniform(25, 50), 5), round(rng.uniform(-120, -70), 5), "US", 100, 13, 10, 9, 0.3, 20)
    world.cities.append(city)
    return city


def load_file(specs: tuple[ToolSpec, ...], world: WeatherWorld, path: Path) -> list[ToolTask]:
    """AgentBoard's weather tasks in file order (AgentGym's index), pinned where recognised."""
    rows = read_agentboard(path, "file")
    kinds: list[str | None] = []
    for row in rows:
        config = row["additional_info"].get("init_config") or {}
        kind = _recognise(row["goal"])
        answer = row["additional_info"].get("answer")
        usable = kind in _PINS and isinstance(answer, (int, float)) and not isinstance(answer, bool)
        if usable and "current_date" in config and "current_location" in config:
            home = _place(world, str(config["current_location"]))
            when, field = _PINS[str(kind)]
            world.pin(home.latitude, home.longitude, when(today(config["current_date"])), {field: float(answer)})
            kinds.append(kind)
        else:
            kinds.append(None)
    tasks = []
    for index, (row, kind) in enumerate(zip(rows, kinds)):
        plan: list[str] = []
        if kind is not None:
            config = row["additional_info"]["init_config"]
            toolkit = _toolkit(specs, world, config["current_date"], config["current_location"])
            answer, lines = expert.solve(kind, toolkit, {})
            if answer == row["additional_info"].get("answer"):
                plan = lines
        tasks.append(task_from_row(row, index, kind if plan else None, plan))
    return tasks


def file_in(data_dir: str) -> Path:
    """`data_dir` is AgentBoard's data folder (holding weather.jsonl) or the file itself."""
    path = Path(data_dir)
    return path / "weather.jsonl" if path.is_dir() else path
