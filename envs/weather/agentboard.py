"""AgentBoard's `weather.jsonl` loaded from a directory, with the sandbox built for it.

A question the loader recognises (data/templates.json "recognise", envs/weather/recognise.py)
has the world built for its recorded answer by its pin rule (places set out and heights pinned
by envs/weather/layout.py, days pinned by envs/weather/pins.py), and a plan where the expert,
solving it with the tools, reaches that answer. Any other question, or one whose answer the
world cannot also hold, has no plan, and a note that says why (envs/weather/exceptions.py;
bench/weather.py lists them by reason).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.tasks import ToolTask, read_agentboard, task_from_row
from coevo.envs.weather import exceptions, expert, layout, pins
from coevo.envs.weather.recognise import RULES, Question, point_day, recognise
from coevo.envs.weather.tasks import toolkit_for
from coevo.envs.weather.toolkit import today
from coevo.envs.weather.world import City, WeatherWorld


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
    "stat_on_days_with": pins.stat_on_days_with,
    "which_days": pins.which_days,
    "extreme_amount_days": pins.extreme_amount_days,
    "totals": pins.totals,
    "daily_values": pins.daily_values,
    "fahrenheit_day": pins.fahrenheit_day,
    "past_years_max": pins.past_years_max,
    "past_years_order": pins.past_years_order,
    "daily_tuples": pins.daily_tuples,
}


#: Exact rules over a whole window, run after the others; then totals of two quantities (the
#: later of two rules that disagree is the one that fails).
_LAST = {"window_total": 1, "window_mean": 1, "parts": 1, "totals": 2}


def _side(world: WeatherWorld, item: _Loaded, where: str) -> City:
    """A comparison's place: the user's home or the place the question names there."""
    assert item.home is not None
    return item.home if where == "home" else _place(world, item.params[where])


def _pin_exact(world: WeatherWorld, item: _Loaded) -> None:
    """The exact rule of one question: values, windows, days of a place."""
    question, home, now = item.question, item.home, item.now
    assert question is not None and home is not None and now is not None
    rule, p = question.pin["rule"], question.params
    if rule == "day_value":
        pins.day_value(world, home, now, question.pin, item.answer)
    elif rule in _EXACT_RULES:
        _EXACT_RULES[rule](world, _place(world, p["city"]) if "city" in p else home, now, p, item.answer)
    elif rule == "extreme_day":
        pins.extreme_day(world, home, now, p, item.answer)
    elif rule == "best_air":
        pins.best_air(world, {p[k]: _place(world, p[k]) for k in ("city", "other", "third")}, now, p, item.answer)
    elif rule == "top_city":
        places = {p[k]: _place(world, p[k]) for k in ("city", "other", "third")}
        pins.top_city(world, places, now, p, str(question.pin["field"]), item.answer)
    elif rule == "city_window_means":
        pins.city_window_means(world, [_place(world, p[k]) for k in ("city", "other")], now, p, item.answer)
    elif rule == "mean_of_cities":
        cities = [_place(world, p[k]) for k in ("city", "other", "third")]
        pins.mean_of_cities(world, cities, point_day(now, question.pin["day"], p), question.pin["field"], item.answer)
    elif rule == "parts":
        _pin_parts(world, _place(world, p["city"]) if "city" in p else home, now, question, item.answer)
    elif rule == "same_air_level":
        pins.same_air_level(world, [_place(world, p["city"]), home], now, item.answer)
    elif rule == "snow_difference":
        pins.snow_difference(world, {p[k]: _place(world, p[k]) for k in ("city", "other")}, now, p, item.answer)
    elif rule == "difference":
        ends = [
            (_side(world, item, where), point_day(now, day, p), str(field))
            for where, day, field in (question.pin["a"], question.pin["b"])
        ]
        pins.difference(world, ends, item.answer)


def _pin_parts(world: WeatherWorld, place: City, now: date, question: Question, answer: Any) -> bool:
    """Two questions in one, answered as a list: each part's value by that part's kind's rule.
    finish sorts a list answer, so a value goes to the part in the question's order, else the
    other order where the first does not fit (a count must be a whole number)."""
    parts = question.pin["parts"]
    if not isinstance(answer, list) or len(answer) != len(parts):
        return False
    rules = [RULES[kind]["pin"]["rule"] for kind, _ in parts]
    for order in (answer, answer[::-1]):
        if all(pins.fits(rule, value) for rule, value in zip(rules, order)):
            return all(
                [
                    _EXACT_RULES[rule](world, place, now, {**question.params, **extra}, value)
                    for rule, (_, extra), value in zip(rules, parts, order)
                ]
            )
    return False


def _pin_order(world: WeatherWorld, item: _Loaded) -> None:
    """The order rule of one question: which day or city has more, or how two values relate."""
    question, home, now = item.question, item.home, item.now
    assert question is not None and home is not None and now is not None
    rule, p = question.pin["rule"], question.params
    if rule == "day_order":
        pins.day_order(world, home, now, p, question.pin["field"], item.answer)
    elif rule == "top_rise":
        places = {p[k]: _place(world, p[k]) for k in ("city", "other", "third")}
        pins.top_rise(world, places, now, p, str(question.pin["field"]), item.answer)
    elif rule == "streak_order":
        pins.streak_order(world, {p[k]: _place(world, p[k]) for k in ("city", "other")}, now, p, item.answer)
    elif rule == "above_window_mean":
        pins.above_window_mean(world, home, now, p, item.answer)
    elif rule == "window_order":
        pins.window_order(world, {p[k]: _place(world, p[k]) for k in ("city", "other")}, now, p, item.answer)
    elif rule == "compare":
        default = pins.FIELDS[question.pin["var"]][0]
        sides = [
            (_side(world, item, where), point_day(now, day, p), str(field[0]) if field else default)
            for where, day, *field in (question.pin["a"], question.pin["b"])
        ]
        pins.compare(world, sides, question.pin, p, item.answer)


def load_file(specs: tuple[ToolSpec, ...], world: WeatherWorld, path: Path) -> list[ToolTask]:
    """AgentBoard's weather tasks in file order (AgentGym's index). The world is built for the
    recognised ones: places set out for the distances, heights pinned, then the days (exact
    values before orders); then the expert solves each on it, and a task gets a plan only
    where its answer is the file's."""
    loaded = _read(world, read_agentboard(path, "file"))
    layout.place_distances(world, _pairs(loaded, "distance"))
    layout.pin_heights(world, _pairs(loaded, "elevation"))
    recognised = [item for item in loaded if item.question is not None]
    # Totals and means over windows last: they fit around the days other rules pinned.
    for item in sorted(recognised, key=lambda item: _LAST.get(item.question.pin["rule"], 0) if item.question else 0):
        _pin_exact(world, item)
    for _ in range(2):  # a second pass of orders settles one raised by another
        for item in recognised:
            _pin_order(world, item)
    tasks = []
    for index, item in enumerate(loaded):
        plan: list[str] = []
        kind = item.question.kind if item.question else None
        note = exceptions.unrecognised(item.row["goal"])
        if item.question is not None and kind is not None:
            config = item.row["additional_info"]["init_config"]
            toolkit = toolkit_for(specs, world, config["current_date"], config["current_location"])
            question = {**item.params, "goal": item.row["goal"], "pin": item.question.pin}
            answer, lines = expert.solve(kind, toolkit, question)
            if answer == item.answer and all(g == answer for g in item.row["subgoals"]):
                plan = lines
            note = exceptions.unheld(kind, item.row["goal"], item.answer, item.row["subgoals"], answer)
        tasks.append(task_from_row(item.row, index, kind, plan, None if plan else note))
    return tasks


def file_in(data_dir: str) -> Path:
    """`data_dir` is AgentBoard's data folder (holding weather.jsonl) or the file itself."""
    path = Path(data_dir)
    return path / "weather.jsonl" if path.is_dir() else path
