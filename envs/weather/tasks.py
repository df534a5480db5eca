"""Weather's tasks: generated questions of the kinds in data/templates.json (answers solved on
the sandbox by the expert), and AgentBoard's `weather.jsonl` loaded from a directory.

A loaded question the loader recognises (data/templates.json "recognise", envs/weather/
recognise.py) has the world built for its recorded answer by its pin rule (places set out and
heights pinned by envs/weather/layout.py, days pinned by envs/weather/pins.py), and a plan where
the expert, solving it with the tools, reaches that answer. Any other question, or one whose
answer the world cannot also hold, has no plan (bench/weather.py lists those by reason).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.tasks import ToolTask, read_agentboard, task_from_row
from coevo.envs.weather import expert, layout, pins
from coevo.envs.weather.recognise import Question, point_day, recognise
from coevo.envs.weather.toolkit import WeatherToolkit, today
from coevo.envs.weather.world import DATA, City, WeatherWorld, load_cities

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


def _place(world: WeatherWorld, name: str) -> City:
    """The place a loaded task names: a known city, or one added with made-up coordinates."""
    return world.city(name) or world.add_place(name)


@dataclass
class _Loaded:
    """One row of the file and what the loader read from it."""

    row: dict[str, Any]
    question: Question | None
    home: City | None = None
    now: date | None = None

    @property
    def answer(self) -> Any:
        return self.row["additional_info"].get("answer")

    @property
    def params(self) -> dict[str, str]:
        return dict(self.question.params) if self.question else {}


def _read(world: WeatherWorld, rows: list[dict[str, Any]]) -> list[_Loaded]:
    """Recognise each question; add every place a recognised one names to the world."""
    loaded = []
    for row in rows:
        config = row["additional_info"].get("init_config") or {}
        question = recognise(row["goal"])
        if question is None or "current_date" not in config or "current_location" not in config:
            loaded.append(_Loaded(row, None))
            continue
        home = _place(world, str(config["current_location"]))
        for key in ("city", "other", "third"):
            if key in question.params:
                _place(world, question.params[key])
        loaded.append(_Loaded(row, question, home, today(config["current_date"])))
    return loaded


def _pairs(loaded: list[_Loaded], rule: str) -> list[tuple[str, str, float]]:
    """The (place, place, answer) pairs of the questions whose pin is `rule`."""
    pairs = []
    for item in loaded:
        if item.question is None or item.question.pin["rule"] != rule or not pins.is_number(item.answer):
            continue
        assert item.home is not None
        p = item.params
        if rule == "distance":
            pairs.append((item.home.name, p["city"], float(item.answer)))
        else:
            pairs.append((p["city"], p.get("other", item.home.name), float(item.answer)))
    return pairs


#: The exact pin rules about a window or a day of a place (the question's city, else home).
_EXACT_RULES = {
    "window_total": pins.window_total,
    "window_mean": pins.window_mean,
    "date_value": pins.date_value,
    "wet_days": pins.wet_days,
    "wet_streak": pins.wet_streak,
    "days_with": pins.days_with,
    "precipitation_on_days_with": pins.precipitation_on_days_with,
    "trend": pins.trend,
    "temperature_range": pins.temperature_range,
    "day_forecast": pins.day_forecast,
    "window_max": pins.window_max,
    "air_quality_level": pins.air_quality_level,
}


def _pin_days(world: WeatherWorld, item: _Loaded, order: bool) -> None:
    """The exact rules (`order` False) or the order rules of one question."""
    question, home, now = item.question, item.home, item.now
    if question is None or home is None or now is None:
        return
    rule, p = question.pin["rule"], question.params
    if not order and rule == "day_value":
        pins.day_value(world, home, now, question.pin, item.answer)
    elif not order and rule in _EXACT_RULES:
        _EXACT_RULES[rule](world, _place(world, p["city"]) if "city" in p else home, now, p, item.answer)
    elif order and rule == "day_order":
        pins.day_order(world, home, now, p, question.pin["field"], item.answer)
    elif not order and rule == "extreme_day":
        pins.extreme_day(world, home, now, p, item.answer)
    elif not order and rule == "best_air":
        places = {p[key]: _place(world, p[key]) for key in ("city", "other", "third")}
        pins.best_air(world, places, now, p, item.answer)
    elif not order and rule == "snow_difference":
        pins.snow_difference(
            world, {name: _place(world, name) for name in (p["city"], p["other"])}, now, p, item.answer
        )
    elif order and rule == "compare":
        sides = [
            (home if where == "home" else _place(world, p[where]), point_day(now, day, p))
            for where, day in (question.pin["a"], question.pin["b"])
        ]
        pins.compare(world, sides, question.pin, p, item.answer)
    elif not order and rule == "difference":
        ends = [
            (home if where == "home" else _place(world, p[where]), point_day(now, day, p), str(field))
            for where, day, field in (question.pin["a"], question.pin["b"])
        ]
        pins.difference(world, ends, item.answer)
    elif order and rule == "window_order":
        places = {name: _place(world, name) for name in (p["city"], p["other"])}
        pins.window_order(world, places, now, p, item.answer)


def load_file(specs: tuple[ToolSpec, ...], world: WeatherWorld, path: Path) -> list[ToolTask]:
    """AgentBoard's weather tasks in file order (AgentGym's index). The world is built for the
    recognised ones: places set out for the distances, heights pinned, then the days (exact
    values before orders); then the expert solves each on it, and a task gets a plan only
    where its answer is the file's."""
    loaded = _read(world, read_agentboard(path, "file"))
    layout.place_distances(world, _pairs(loaded, "distance"))
    layout.pin_heights(world, _pairs(loaded, "elevation"))
    for order in (False, True, True):  # a second pass of orders settles one raised by another
        for item in loaded:
            _pin_days(world, item, order)
    tasks = []
    for index, item in enumerate(loaded):
        plan: list[str] = []
        kind = item.question.kind if item.question else None
        if item.question is not None and kind is not None:
            config = item.row["additional_info"]["init_config"]
            toolkit = _toolkit(specs, world, config["current_date"], config["current_location"])
            question = {**item.params, "goal": item.row["goal"], "pin": item.question.pin}
            answer, lines = expert.solve(kind, toolkit, question)
            if answer == item.answer and all(g == answer for g in item.row["subgoals"]):
                plan = lines
        tasks.append(task_from_row(item.row, index, kind, plan))
    return tasks


def file_in(data_dir: str) -> Path:
    """`data_dir` is AgentBoard's data folder (holding weather.jsonl) or the file itself."""
    path = Path(data_dir)
    return path / "weather.jsonl" if path.is_dir() else path
