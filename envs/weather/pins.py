"""Pin rules for a loaded question's days (data/templates.json "recognise" ... "pin"): each sets
the sandbox's daily values at a place so the tools return the file's answer.

Exact rules (`day_value`, `date_value`, `window_total`, `window_mean`, `wet_days`,
`wet_streak`) run first; order rules (`day_order`, `window_order`)
then only touch days no exact rule pinned, so a later rule never undoes an earlier one. A rule
that cannot hold (an answer of the wrong type, a window an earlier task already fixed to
another total) returns False; the loader then finds the expert's answer differs and lists it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from coevo.envs.weather.recognise import (
    CONDITIONS,
    PER_INCH,
    QUANTITIES,
    RELATION_WORDS,
    SIGNIFICANT,
    STATISTICS,
    Condition,
    day_of_last_month,
    day_of_month,
    named_day,
    past_years_days,
    question_days,
    window,
)
from coevo.envs.weather.toolkit import air_quality_level as level_of
from coevo.envs.weather.world import City, WeatherWorld, grid

#: The daily field a question's variable reads, and the decimals Open-Meteo gives it.
FIELDS = {
    "temperature": ("temperature_2m_mean", 1),
    "rain": ("rain_sum", 1),
    "snow": ("snowfall_sum", 2),
    "average temperature": ("temperature_2m_mean", 1),
    "high temperature": ("temperature_2m_max", 1),
}
_DAYS: dict[str, Callable[[date], date]] = {
    "yesterday": lambda now: now - timedelta(days=1),
    "today": lambda now: now,
    "tomorrow": lambda now: now + timedelta(days=1),
    "last_year": lambda now: now.replace(year=now.year - 1),
}


def is_number(answer: Any) -> bool:
    return isinstance(answer, (int, float)) and not isinstance(answer, bool)


def fits(rule: str, value: Any) -> bool:
    """Whether a value can be a part's answer under its rule: a count is a whole number, a
    total or a day's value a number at or above 0."""
    if rule == "wet_days":
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return is_number(value) and value >= 0


def _pinned(world: WeatherWorld, place: City, day: date, field: str) -> bool:
    return field in world.pins.get((grid(place.latitude), grid(place.longitude), day.isoformat()), {})


def _value(world: WeatherWorld, place: City, day: date, field: str) -> float:
    value: float = getattr(world.day(place.latitude, place.longitude, day), field)
    return value


def _days(start: date, end: date) -> list[date]:
    return [start + timedelta(days=i) for i in range((end - start).days + 1)]


def day_value(world: WeatherWorld, home: City, now: date, pin: Mapping[str, Any], answer: Any) -> bool:
    """One day's value (relative to today) is the answer."""
    if not is_number(answer):
        return False
    world.pin(home.latitude, home.longitude, _DAYS[pin["day"]](now), {pin["field"]: float(answer)})
    return True


def _decimals(value: float, least: int) -> int:
    return max(least, len(repr(float(round(value, 6))).split(".")[1]))


def _fill(world: WeatherWorld, place: City, days: Sequence[date], field: str, target: float, decimals: int) -> bool:
    """Make the days' values sum to `target`: the days no earlier rule pinned keep their
    generated shape, scaled (temperatures: shifted) to the rest of the total, and kept under the
    caps an earlier rule set (the excess goes to days with room)."""
    free = [d for d in days if not _pinned(world, place, d, field)]
    rest = round(target - sum(_value(world, place, d, field) for d in days if d not in free), decimals)
    shifted = field.startswith("temperature")
    if (rest < 0 and not shifted) or (not free and rest != 0):
        return False
    shape = [_value(world, place, d, field) for d in free]
    total = sum(shape)
    if shifted:
        values = [round(v + (rest - total) / len(free), decimals) for v in shape] if free else []
    elif total > 0:
        values = [round(v * rest / total, decimals) for v in shape]
    else:
        values = [rest] + [0.0] * (len(free) - 1)
    if values:
        biggest = values.index(max(values))
        values[biggest] = round(values[biggest] + rest - sum(values), decimals)
    caps = [world.cap_of(place.latitude, place.longitude, d, field) for d in free]
    if any(cap is not None for cap in caps) and not _under_caps(values, caps, decimals):
        return False
    for day, value in zip(free, values):
        world.pin(place.latitude, place.longitude, day, {field: value})
    return True


def _under_caps(values: list[float], caps: Sequence[float | None], decimals: int) -> bool:
    """Move what exceeds a day's cap to days with room, in order (in place); False where the
    room is too small."""
    excess = 0.0
    for i, cap in enumerate(caps):
        if cap is not None and values[i] > cap:
            excess += values[i] - cap
            values[i] = cap
    for i, cap in enumerate(caps):
        room = float("inf") if cap is None else max(0.0, cap - values[i])
        moved = round(min(room, excess), decimals)
        values[i] = round(values[i] + moved, decimals)
        excess -= moved
    return abs(excess) < 10 ** -(decimals + 1)


def window_total(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """A window's rain or snow sums to the answer (in inches where the question asks so)."""
    if not is_number(answer) or answer < 0:
        return False
    field, decimals = FIELDS[params["var"]]
    days = _days(*window(now, params["when"], params["span"]))
    target = answer * PER_INCH[params["var"]] if params.get("unit") == "inches" else answer
    return _fill(world, place, days, field, target, _decimals(target, decimals))


def window_mean(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """A window's daily mean (temperature, rain or snow) averages to the answer."""
    if not is_number(answer):
        return False
    field, decimals = FIELDS[params["var"]]
    days = _days(*window(now, params["when"], params["span"]))
    target = answer * len(days) * (PER_INCH[params["var"]] if params.get("unit") == "inches" else 1)
    return _fill(world, place, days, field, target, _decimals(target, decimals))


def date_value(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """A day of this, next or last month has the answer as its value."""
    if not is_number(answer):
        return False
    field, _ = FIELDS[params["var"]]
    world.pin(place.latitude, place.longitude, named_day(now, params), {field: answer})
    return True


def _wet(world: WeatherWorld, place: City, day: date, field: str, wet: bool) -> bool:
    """Make a day wet (at least 0.5) or dry (0.0), and pinned so, unless a rule pinned it
    otherwise."""
    value = _value(world, place, day, field)
    if _pinned(world, place, day, field):
        return (value > 0) == wet
    world.pin(place.latitude, place.longitude, day, {field: (max(value, 0.5) if wet else 0.0)})
    return True


def wet_days(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The answer is how many days of the window have rain (or snow): the first ones do."""
    field, _ = FIELDS[params["var"]]
    days = _days(*window(now, params["when"], params["span"]))
    if not isinstance(answer, int) or not 0 <= answer <= len(days):
        return False
    return all([_wet(world, place, d, field, i < answer) for i, d in enumerate(days)])


def _set(world: WeatherWorld, place: City, day: date, field: str, ok: Callable[[float], bool], value: float) -> bool:
    """Pin `field` to `value` unless it already passes `ok` (pinned so either way); False where
    a rule pinned it to a failing value."""
    current = _value(world, place, day, field)
    if _pinned(world, place, day, field):
        return ok(current)
    world.pin(place.latitude, place.longitude, day, {field: current if ok(current) else value})
    return True


def _condition(world: WeatherWorld, place: City, day: date, condition: Condition, holds: bool) -> bool:
    """Make the day meet a condition (its rain and snow, then its temperature), or fail it by
    drying the precipitation it needs (snow first), else by its temperature."""
    rain = _value(world, place, day, "rain_sum")
    if not holds:
        if condition.more is not None:  # none of what should be the larger, else as much of the other
            more, less = FIELDS[condition.more][0], FIELDS["snow" if condition.more == "rain" else "rain"][0]
            if not _pinned(world, place, day, more):
                return _wet(world, place, day, more, False)
            top = _value(world, place, day, more)
            return _set(world, place, day, less, lambda v: v >= top, top)
        if condition.precipitation:
            dry = [_wet(world, place, day, field, False) for field in ("rain_sum", "snowfall_sum")]
            return all(dry)
        if condition.snow:
            return _wet(world, place, day, "snowfall_sum", False)
        if condition.rain:
            return _wet(world, place, day, "rain_sum", False)
        assert condition.temperature is not None
        field, op, limit = condition.temperature
        return _set(
            world, place, day, field, lambda v: not condition.temperature_ok(v), limit - 1 if op == ">" else limit + 1
        )
    ok = True
    if condition.more is not None:
        more, less = FIELDS[condition.more][0], FIELDS["snow" if condition.more == "rain" else "rain"][0]
        ok = _wet(world, place, day, less, False) and _wet(world, place, day, more, True)
    if condition.precipitation is not None:
        snow = _value(world, place, day, "snowfall_sum")
        ok = _set(world, place, day, "rain_sum", lambda r: (r + snow > 0) == condition.precipitation, 0.5) and ok
    if condition.rain is not None:
        wet = (
            (condition.rain_above or 0.0) + 1.0
            if condition.rain_below is None
            else min(max(rain, 0.5), condition.rain_below - 0.5)
        )
        ok = _set(world, place, day, "rain_sum", condition.rain_ok, round(wet, 1) if condition.rain else 0.0)
    if condition.snow is not None and condition.snow_above is not None:
        ok = _set(world, place, day, "snowfall_sum", condition.snow_ok, condition.snow_above + 1.0) and ok
    elif condition.snow is not None:
        ok = _wet(world, place, day, "snowfall_sum", condition.snow) and ok
    if condition.temperature is not None:
        field, op, limit = condition.temperature
        ok = _set(world, place, day, field, condition.temperature_ok, limit + 1 if op == ">" else limit - 1) and ok
    return ok


def days_with(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The answer is how many days of the window meet the condition (Yes: some, No: none): the
    first ones do, the others do not."""
    days = _days(*question_days(now, params))
    count = {"Yes": 1, "No": 0}.get(answer, answer) if isinstance(answer, str) else answer
    if not isinstance(count, int) or not 0 <= count <= len(days):
        return False
    condition = CONDITIONS[params["which"]]
    return all([_condition(world, place, d, condition, i < count) for i, d in enumerate(days)])


def precipitation_on_days_with(
    world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any
) -> bool:
    """No precipitation (snowfall, where the question sums only that) on the days meeting the
    condition: none of the window's days meets it, or none has snow (the only answer this rule
    builds; any other fails)."""
    if answer != 0 or not is_number(answer):
        return False
    condition = CONDITIONS[params["which"]]
    days = _days(*window(now, "past", params["span"]))
    if params.get("total") == "snowfall":
        return all([_wet(world, place, d, "snowfall_sum", False) for d in days])
    return all([_condition(world, place, d, condition, False) for d in days])


def snow_difference(
    world: WeatherWorld, places: Mapping[str, City], now: date, params: Mapping[str, str], answer: Any
) -> bool:
    """The first city's snowfall that day exceeds the second's by the answer."""
    if not is_number(answer) or answer < 0:
        return False
    day = now + timedelta(days=1 if params["day"] == "tomorrow" else 0)
    first, second = places[params["city"]], places[params["other"]]
    if not _pinned(world, first, day, "snowfall_sum"):
        value = round(_value(world, second, day, "snowfall_sum") + answer, 2)
        world.pin(first.latitude, first.longitude, day, {"snowfall_sum": value})
        return True
    value = round(_value(world, first, day, "snowfall_sum") - answer, 2)
    if value < 0 or _pinned(world, second, day, "snowfall_sum"):
        return False
    world.pin(second.latitude, second.longitude, day, {"snowfall_sum": value})
    return True


#: An answer's word -> how the first side of a comparison relates to the second (the words a
#: question offers: data/templates.json "relation_words").
RELATIONS = {"Yes": ">", "No": "<="} | {
    word: relation for words in RELATION_WORDS for word, relation in zip(words, (">", "<", "="))
}


def _change(answer: str, direction: str) -> float:
    """How far the first side should lie from the second for a significant-change answer: "Yes"
    a degree past the threshold in the question's direction (either way: up), "No" a degree up
    (no drop, and short of significant either way)."""
    if answer == "No":
        return 1.0
    margin = SIGNIFICANT + 1.0
    return -margin if direction == "drop" else margin


def compare(
    world: WeatherWorld,
    sides: Sequence[tuple[City, date, str]],
    pin: Mapping[str, Any],
    params: Mapping[str, str],
    answer: Any,
) -> bool:
    """Two (place, day, field) values relate as the answer says (a city's name: that side is
    higher; where the question names a `change`, Yes/No: whether the first moved from the second
    by a significant change, data/templates.json "significant_change"). The first side is moved
    to just above, below or onto the second (or to the change wanted), else the second side."""
    change = "change" in params
    if change and answer in ("Yes", "No"):
        relation = str(answer)
    elif answer in (params.get("city"), params.get("other")):
        relation = ">" if answer == params["city"] else "<"
    elif isinstance(answer, str) and answer in RELATIONS:
        relation = RELATIONS[answer]
    else:
        return False
    (a_place, a_day, a_field), (b_place, b_day, b_field) = sides
    a, b = _value(world, a_place, a_day, a_field), _value(world, b_place, b_day, b_field)
    if change:
        direction = params.get("direction", "")
        holds = significant(a, b, direction) == (relation == "Yes")
        wanted_a, wanted_b = b + _change(relation, direction), a - _change(relation, direction)
    else:
        holds = {">": a > b, "<": a < b, "<=": a <= b, "=": a == b}[relation]
        wanted_a = {">": b + 1.0, "<": b - 1.0, "<=": b, "=": b}[relation]
        wanted_b = {">": a - 1.0, "<": a + 1.0, "<=": a, "=": a}[relation]
    if not holds:
        low = not a_field.startswith("temperature")  # rain cannot go below 0
        if not _pinned(world, a_place, a_day, a_field) and not (low and wanted_a < 0):
            a = round(wanted_a, 1)
        elif not _pinned(world, b_place, b_day, b_field) and not (low and wanted_b < 0):
            b = round(wanted_b, 1)
        else:
            return False
    for place, day, field, value in ((a_place, a_day, a_field, a), (b_place, b_day, b_field, b)):
        if not _pinned(world, place, day, field):
            world.pin(place.latitude, place.longitude, day, {field: value})
    return True


def significant(a: float, b: float, direction: str) -> bool:
    """Whether `a` differs from `b` by a significant change (at least SIGNIFICANT degrees, to
    the tenth the data carries) in the direction named: a drop, an increase, else either way."""
    change = round(a - b, 1)
    if direction == "drop":
        return -change >= SIGNIFICANT
    if direction in ("increase", "rise"):
        return change >= SIGNIFICANT
    return abs(change) >= SIGNIFICANT


def difference(world: WeatherWorld, sides: Sequence[tuple[City, date, str]], answer: Any) -> bool:
    """The first (place, day, field) value exceeds the second by the answer: the first is set
    so, else the second."""
    if not is_number(answer):
        return False
    (a_place, a_day, a_field), (b_place, b_day, b_field) = sides
    decimals = _decimals(answer, 1)
    if not _pinned(world, a_place, a_day, a_field):
        value = round(_value(world, b_place, b_day, b_field) + answer, decimals)
        world.pin(a_place.latitude, a_place.longitude, a_day, {a_field: value})
    elif not _pinned(world, b_place, b_day, b_field):
        value = round(_value(world, a_place, a_day, a_field) - answer, decimals)
        world.pin(b_place.latitude, b_place.longitude, b_day, {b_field: value})
    else:
        return False
    return True


#: The series a trend answer names: (value at day i of n) from a base and a step.
_TRENDS: dict[str, Callable[[float, float, int, int], float]] = {
    "increasing": lambda base, step, i, n: base + i * step,
    "decreasing": lambda base, step, i, n: base + (n - 1 - i) * step,
    "stable": lambda base, step, i, n: base,
    "fluctuating": lambda base, step, i, n: base + (i % 2) * step,
}


def trend(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The window's values rise, fall, stay or fluctuate as the answer says."""
    word = str(answer).lower()
    days = _days(*window(now, params["when"], params["span"]))
    if word not in _TRENDS or (word == "fluctuating" and len(days) < 3):
        return False
    field, _ = FIELDS[params.get("var", "temperature")]
    if any(_pinned(world, place, d, field) for d in days):
        return False
    temperature = field.startswith("temperature")
    base = _value(world, place, days[0], field) if temperature else max(0.0, _value(world, place, days[0], field))
    step = 1.0 if temperature else 0.5
    for i, day in enumerate(days):
        world.pin(place.latitude, place.longitude, day, {field: round(_TRENDS[word](base, step, i, len(days)), 1)})
    return True


def temperature_range(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The window's (or month's) lowest minimum and highest maximum are the answer's two values."""
    if not isinstance(answer, list) or len(answer) != 2 or not all(is_number(v) for v in answer):
        return False
    low, high = answer
    days = _days(*question_days(now, params))
    if low > high or any(_pinned(world, place, d, "temperature_2m_max") for d in days):
        return False
    for i, day in enumerate(days):
        record = world.day(place.latitude, place.longitude, day)
        smallest = low if i == 0 else min(max(record.temperature_2m_min, low), high)
        largest = high if i == len(days) - 1 else max(min(record.temperature_2m_max, high), smallest)
        world.pin(place.latitude, place.longitude, day, {"temperature_2m_min": smallest, "temperature_2m_max": largest})
    return True


def day_forecast(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """A day's minimum, mean and maximum are the answer's three values."""
    if (
        not isinstance(answer, list)
        or len(answer) != 3
        or not all(is_number(v) for v in answer)
        or answer != sorted(answer)
    ):
        return False
    day = named_day(now, params)
    low, mean, high = answer
    values = {"temperature_2m_min": low, "temperature_2m_mean": mean, "temperature_2m_max": high}
    world.pin(place.latitude, place.longitude, day, values)
    return True


def _hold_max(world: WeatherWorld, place: City, days: list[date], field: str, answer: float) -> bool:
    """`answer` is the highest of `field` over `days`: a day pinned to it, else the first free
    day set to it; free days above it come down to it, the others stay free for later rules
    under a cap (a window may share its days with many)."""
    pinned = [_value(world, place, d, field) for d in days if _pinned(world, place, d, field)]
    if any(value > answer for value in pinned):
        return False
    reached = answer in pinned
    for day in days:
        if _pinned(world, place, day, field):
            continue
        if not reached or _value(world, place, day, field) > answer:
            world.pin(place.latitude, place.longitude, day, {field: answer})
            reached = True
        else:
            world.cap(place.latitude, place.longitude, day, field, answer)
    return reached


def window_max(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The window's highest daily value (maximum temperature, or the variable named) is the
    answer: a day pinned to it, else the first free day set to it; free days above it come down
    to it, the others stay free for later rules under a cap (a year's window shares its days
    with many)."""
    field = FIELDS[params["var"]][0] if "var" in params else "temperature_2m_max"
    days = _days(*window(now, params["when"], params["span"]))
    if not is_number(answer):
        return False
    return _hold_max(world, place, days, field, answer)


def extreme_days(now: date, params: Mapping[str, str]) -> list[date]:
    """The days an extreme question weighs: the three it names, or this month's so far."""
    if "first" in params:
        return [day_of_month(now, params["month"], params[key]) for key in ("first", "second", "third")]
    return _days(now.replace(day=1), now - timedelta(days=1))


def extreme_day(world: WeatherWorld, home: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The answer's day has the highest (lowest, coldest) daily mean of the days weighed."""
    field = "temperature_2m_mean"
    days = extreme_days(now, params)
    chosen = next((d for d in days if d.isoformat() == answer), None)
    if chosen is None or _pinned(world, home, chosen, field):
        return False
    others = [_value(world, home, d, field) for d in days if d != chosen]
    value = max(others) + 1.0 if params["most"] == "highest" else min(others) - 1.0
    world.pin(home.latitude, home.longitude, chosen, {field: round(value, 1)})
    return True


#: An air-quality level -> a European AQI (PM2.5) inside its band (get_air_quality_level's).
LEVEL_INDEX = {"good": 10, "fair": 30, "moderate": 50, "poor": 70, "very poor": 90, "extremely poor": 120}


def air_quality_level(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """A day's air-quality index lies in the answer's level."""
    if answer not in LEVEL_INDEX:
        return False
    day = named_day(now, params)
    world.pin(place.latitude, place.longitude, day, {"european_aqi_pm2_5": LEVEL_INDEX[answer]})
    return True


def air_days(now: date, span: str) -> list[date]:
    return [now] if span == "today" else _days(now - timedelta(days=3), now - timedelta(days=1))


def best_air(
    world: WeatherWorld, places: Mapping[str, City], now: date, params: Mapping[str, str], answer: Any
) -> bool:
    """The answer's city has the lowest (best) air-quality index on the days asked: 1 there, at
    least 2 in the others."""
    names = [params["city"], params["other"], params["third"]]
    if answer not in names:
        return False
    field = "european_aqi_pm2_5"
    for day in air_days(now, params["span"]):
        for name in names:
            place, value = places[name], _value(world, places[name], day, field)
            wanted = 1 if name == answer else max(value, 2)
            if _pinned(world, place, day, field):
                if (value == 1) != (name == answer):
                    return False
            else:
                world.pin(place.latitude, place.longitude, day, {field: wanted})
    return True


#: Days a streak question looks ahead (a longer streak is not counted to its end).
STREAK_DAYS = 16


def wet_streak(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The answer is how many days in a row, from the start day, have rain (or snow)."""
    if not isinstance(answer, int) or not 0 <= answer < STREAK_DAYS:
        return False
    field, _ = FIELDS[params["var"]]
    start = now + timedelta(days=2 if params["start"] == "the day after tomorrow" else 1)
    return all([_wet(world, place, start + timedelta(days=i), field, i < answer) for i in range(answer + 1)])


def _raise(world: WeatherWorld, place: City, more: Sequence[date], less_total: float, field: str) -> bool:
    """Make `more`'s total exceed `less_total` by raising its first unpinned day."""
    total = sum(_value(world, place, d, field) for d in more)
    if total > less_total:
        return True
    free = [d for d in more if not _pinned(world, place, d, field)]
    if not free:
        return False
    value = _value(world, place, free[0], field) + (less_total - total) + 1.0
    world.pin(place.latitude, place.longitude, free[0], {field: round(value, 1)})
    return True


def day_order(world: WeatherWorld, home: City, now: date, params: Mapping[str, str], field: str, answer: Any) -> bool:
    """Of two days of last month, the answer's has more rain ("Both": the same)."""
    first, second = day_of_last_month(now, params["first"]), day_of_last_month(now, params["second"])
    one, two = _value(world, home, first, field), _value(world, home, second, field)
    if answer == "Both":
        if one == two:
            return True
        day, value = (second, one) if not _pinned(world, home, second, field) else (first, two)
        if _pinned(world, home, day, field):
            return False
        world.pin(home.latitude, home.longitude, day, {field: value})
        return True
    if answer in (first.isoformat(), params["first"]):
        return _raise(world, home, [first], two, field)
    if answer in (second.isoformat(), params["second"]):
        return _raise(world, home, [second], one, field)
    return False


def window_order(
    world: WeatherWorld, places: Mapping[str, City], now: date, params: Mapping[str, str], answer: Any
) -> bool:
    """Of two cities, the answer has the most (or, for "lowest"/"least", the least) rain or snow
    in the window."""
    names = (params["city"], params["other"])
    if answer in ("Yes", "No"):  # is the first city's higher
        answer = names[0] if answer == "Yes" else names[1]
    if answer not in names:
        return False
    other = names[1] if answer == names[0] else names[0]
    more, less = (other, answer) if params["most"] in ("lowest", "least") else (answer, other)
    field, _ = FIELDS[params["var"]]
    days = _days(*window(now, params["when"], params["span"]))
    less_total = sum(_value(world, places[less], d, field) for d in days)
    return _raise(world, places[more], days, less_total, field)


def _fill_to(world: WeatherWorld, place: City, day: date, field: str, value: float) -> bool:
    """Pin one day's value, unless a rule pinned it to another."""
    if _pinned(world, place, day, field):
        return bool(_value(world, place, day, field) == value)
    world.pin(place.latitude, place.longitude, day, {field: value})
    return True


def says_none(answer: Any) -> bool:
    """The answer says no day qualifies: "None", an empty list, or words starting "no"."""
    if isinstance(answer, list):
        return not answer
    return isinstance(answer, str) and (answer == "None" or answer.lower().startswith("no "))


def mean_values(answer: float, most: int, decimals: int) -> list[float] | None:
    """The fewest values (at most `most`) with `decimals` decimals (one more where none fit)
    whose mean, as Python sums them in order and divides, is exactly `answer`."""
    for places in (decimals, decimals + 1):
        for n in range(1, most + 1):
            total = round(answer * n, places)
            share = round(total / n, places)
            values = [share] * (n - 1) + [round(total - share * (n - 1), places)]
            if sum(values) / n == answer:
                return values
    return None


def stat_on_days_with(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The statistic (data/templates.json "statistics") over the days meeting the condition is
    the answer: the first days of the window meet it, with values of that mean (or that one
    maximum), the others do not; where the answer says no day qualifies, none does."""
    days = _days(*question_days(now, params))
    condition = CONDITIONS[params["which"]]
    field, how = STATISTICS[params["stat"]]
    if says_none(answer):
        return all([_condition(world, place, d, condition, False) for d in days])
    if not is_number(answer):
        return False
    decimals = 2 if field == "snowfall_sum" else 1
    values = [float(answer)] if how == "max" else mean_values(float(answer), len(days), decimals)
    if values is None:
        return False
    ok = True
    for i, day in enumerate(days):
        ok = _condition(world, place, day, condition, i < len(values)) and ok
        if i < len(values):
            ok = _fill_to(world, place, day, field, values[i]) and ok
            record = world.day(place.latitude, place.longitude, day)
            temperature = getattr(record, condition.temperature[0]) if condition.temperature else 0.0
            ok = ok and condition.meets(record.rain_sum, record.snowfall_sum, temperature)
    return ok


def _chosen(answer: Any, days: Sequence[date]) -> set[date] | None:
    """The days an answer names (a list of dates, one date, or None), if all are among `days`."""
    names = [answer] if isinstance(answer, str) else answer if isinstance(answer, list) else None
    if names is None:
        return None
    if names == ["None"]:
        return set()
    by_name = {d.isoformat(): d for d in days}
    if not all(isinstance(name, str) and name in by_name for name in names):
        return None
    return {by_name[name] for name in names}


def which_days(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The answer's days (a list, one date, None) are the days asked about that meet the condition."""
    days = _days(*question_days(now, params))
    chosen = _chosen(answer, days)
    if chosen is None:
        return False
    condition = CONDITIONS[params["which"]]
    return all([_condition(world, place, d, condition, d in chosen) for d in days])


def extreme_amount_days(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The answer's days have the highest (lowest) rain, snow or both together of the days asked
    about, tied; None: no day has any."""
    days = _days(*question_days(now, params))
    chosen = _chosen(answer, days)
    fields = ("rain_sum", "snowfall_sum") if params["var"] == "combined" else (FIELDS[params["var"]][0],)
    if chosen is None or any(_pinned(world, place, d, f) for d in days for f in fields):
        return False
    highest = params["most"] in ("highest", "most")
    zero = dict.fromkeys(fields, 0.0)
    if not chosen:
        for day in days:
            world.pin(place.latitude, place.longitude, day, zero)
        return highest
    others = [d for d in days if d not in chosen]
    amounts = {d: sum(_value(world, place, d, f) for f in fields) for d in others}
    if highest:
        top = round(max(amounts.values(), default=0.0) + 1.0, 1)
        for day in chosen:
            world.pin(place.latitude, place.longitude, day, {**zero, fields[0]: top})
        return True
    for day in chosen:
        world.pin(place.latitude, place.longitude, day, zero)
    for day in others:
        if amounts[day] <= 0:
            world.pin(place.latitude, place.longitude, day, {fields[0]: 0.5})
    return True


def quantities(params: Mapping[str, str]) -> list[str]:
    """The variables a totals question names, each once (data/templates.json "quantities":
    beside rainfall or snowfall, "precipitation" is the rain)."""
    names = [QUANTITIES[params[key]] for key in ("amount", "also") if key in params]
    return list(dict.fromkeys(names))


def _fits(world: WeatherWorld, place: City, days: Sequence[date], field: str, target: float) -> bool:
    """Whether _fill can make the days' values sum to `target` (temperatures may go below 0)."""
    pinned = sum(_value(world, place, d, field) for d in days if _pinned(world, place, d, field))
    free = any(not _pinned(world, place, d, field) for d in days)
    if free:
        return field.startswith("temperature") or target >= pinned - 1e-9
    return abs(target - pinned) < 1e-9


def totals(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """Each quantity's total over the days asked about is one of the answer's values (one value:
    a number or a list of one). The original sorts a list answer, so which value is which
    quantity's is open: the question's order, else the other where days already pinned need it."""
    names = quantities(params)
    values = answer if isinstance(answer, list) else [answer]
    if len(values) != len(names) or not all(is_number(v) and v >= 0 for v in values):
        return False
    days = _days(*question_days(now, params))
    for order in (values, values[::-1]):
        if all(_fits(world, place, days, FIELDS[var][0], float(v)) for var, v in zip(names, order)):
            fills = [
                _fill(world, place, days, FIELDS[var][0], float(v), _decimals(float(v), FIELDS[var][1]))
                for var, v in zip(names, order)
            ]
            return all(fills)
    return False


def daily_values(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """Each day asked about has the answer's value for it, in order."""
    days = _days(*question_days(now, params))
    if not isinstance(answer, list) or len(answer) != len(days) or not all(is_number(v) for v in answer):
        return False
    field, _ = FIELDS[params["var"]]
    return all([_fill_to(world, place, d, field, float(v)) for d, v in zip(days, answer)])


def top_city(
    world: WeatherWorld, places: Mapping[str, City], now: date, params: Mapping[str, str], field: str, answer: Any
) -> bool:
    """The answer's city has the highest value of the three on the day the question names (a
    degree above the highest of the others)."""
    if answer not in places:
        return False
    day = named_day(now, params)
    others = [_value(world, place, day, field) for name, place in places.items() if name != answer]
    chosen = places[answer]
    if _pinned(world, chosen, day, field):
        return _value(world, chosen, day, field) > max(others)
    world.pin(chosen.latitude, chosen.longitude, day, {field: round(max(others) + 1.0, 1)})
    return True


def city_window_means(
    world: WeatherWorld, places: Sequence[City], now: date, params: Mapping[str, str], answer: Any
) -> bool:
    """Each city's mean over the window is one of the answer's values: in the question's order,
    else the other where days an earlier rule pinned need it (finish sorts a list answer)."""
    if not isinstance(answer, list) or len(answer) != len(places) or not all(is_number(v) for v in answer):
        return False
    field, _ = FIELDS[params["var"]]
    days = _days(*window(now, params["when"], params["span"]))
    for order in (answer, answer[::-1]):
        targets = [float(v) * len(days) for v in order]
        if all(_fits(world, place, days, field, t) for place, t in zip(places, targets)):
            return all([window_mean(world, place, now, params, v) for place, v in zip(places, order)])
    return False


def mean_of_cities(world: WeatherWorld, places: Sequence[City], day: date, field: str, answer: Any) -> bool:
    """The cities' values that day average to the answer: the first city not pinned takes the rest."""
    if not is_number(answer):
        return False
    free = [place for place in places if not _pinned(world, place, day, field)]
    if not free:
        return False
    rest = sum(_value(world, place, day, field) for place in places if place is not free[0])
    world.pin(free[0].latitude, free[0].longitude, day, {field: round(answer * len(places) - rest, 2)})
    return True


def fahrenheit_day(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The day's value (the mean; at night the minimum) in whole degrees Fahrenheit is the
    answer: the day holds the Celsius tenth that converts and rounds to it."""
    if not is_number(answer):
        return False
    celsius = round((answer - 32) * 5 / 9, 1)
    if round(celsius * 9 / 5 + 32) != answer:
        return False
    return _fill_to(world, place, named_day(now, params), fahrenheit_field(params), celsius)


def fahrenheit_field(params: Mapping[str, str]) -> str:
    """The daily field a temperature 'for' an occasion reads: the minimum at night, else the mean."""
    return "temperature_2m_min" if "night" in params else "temperature_2m_mean"


def same_air_level(world: WeatherWorld, places: Sequence[City], now: date, answer: Any) -> bool:
    """Today's air-quality level at the two places is the same (Yes) or not (No): the first
    free place takes the other's index, or a level's index away from it."""
    if answer not in ("Yes", "No"):
        return False
    field = "european_aqi_pm2_5"
    free = [p for p in places if not _pinned(world, p, now, field)]
    if not free:
        return (level_of(_value(world, places[0], now, field)) == level_of(_value(world, places[1], now, field))) == (
            answer == "Yes"
        )
    moving = free[0]
    other = places[1] if moving is places[0] else places[0]
    level = level_of(_value(world, other, now, field))
    wanted = level if answer == "Yes" else ("fair" if level == "good" else "good")
    world.pin(moving.latitude, moving.longitude, now, {field: LEVEL_INDEX[wanted]})
    if _pinned(world, other, now, field):
        return True
    world.pin(other.latitude, other.longitude, now, {field: LEVEL_INDEX[level]})
    return True


def past_years_max(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The highest of the same day over past years is the answer: the first free year holds it
    (unless a pinned one does), free years above it come down to it."""
    if not is_number(answer) or answer < 0:
        return False
    field = FIELDS[params["var"]][0]
    days = past_years_days(now, params)
    return _hold_max(world, place, days, field, answer)


def past_years_order(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """The answer's year has the most on the day named ('Same': every year the same)."""
    field = FIELDS[params["var"]][0]
    days = past_years_days(now, params)
    if any(_pinned(world, place, d, field) for d in days):
        return False
    values = [_value(world, place, d, field) for d in days]
    if answer == "Same":
        for day in days:
            world.pin(place.latitude, place.longitude, day, {field: values[0]})
        return True
    chosen = next((d for d in days if str(d.year) == str(answer)), None)
    if chosen is None:
        return False
    top = max(v for d, v in zip(days, values) if d != chosen)
    world.pin(place.latitude, place.longitude, chosen, {field: round(top + 1.0, 1)})
    return True


def daily_tuples(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """Each day of the window has the answer's values for it: [date, first, second] with the
    values written as text ('0.7'), the variables in the question's order."""
    days = _days(*window(now, params["when"], params["span"]))
    if not isinstance(answer, list) or len(answer) != len(days):
        return False
    fields = [FIELDS[params[key]][0] for key in ("first", "second")]
    for day, row in zip(days, answer):
        if not isinstance(row, list) or len(row) != 3 or row[0] != day.isoformat():
            return False
        try:
            values = [float(text) for text in row[1:]]
        except (TypeError, ValueError):
            return False
        if any(str(v) != text for v, text in zip(values, row[1:])):  # as the tools' floats print
            return False
        if not all([_fill_to(world, place, day, field, v) for field, v in zip(fields, values)]):
            return False
    return True


def longest_run(values: Sequence[float]) -> int:
    """The most days in a row with some (rain, snow) among `values`."""
    best = run = 0
    for value in values:
        run = run + 1 if value > 0 else 0
        best = max(best, run)
    return best


def streak_order(
    world: WeatherWorld, places: Mapping[str, City], now: date, params: Mapping[str, str], answer: Any
) -> bool:
    """Of two cities, the answer's has the longer run of wet days in the window: a run one day
    longer than the other's, at the first place it fits among days no rule pinned dry."""
    names = [params["city"], params["other"]]
    if answer not in names:
        return False
    other = names[1] if answer == names[0] else names[0]
    field, _ = FIELDS[params["var"]]
    days = _days(*window(now, params["when"], params["span"]))
    rival = longest_run([_value(world, places[other], d, field) for d in days])
    chosen = places[answer]
    if longest_run([_value(world, chosen, d, field) for d in days]) > rival:
        return True
    need = rival + 1
    for start in range(len(days) - need + 1):
        stretch = days[start : start + need]
        if all(not _pinned(world, chosen, d, field) or _value(world, chosen, d, field) > 0 for d in stretch):
            return all([_wet(world, chosen, d, field, True) for d in stretch])
    return False


def above_window_mean(world: WeatherWorld, place: City, now: date, params: Mapping[str, str], answer: Any) -> bool:
    """Today's value is above the window's mean (Yes: a unit above the other days' mean) or not
    (No: none, or the other days' mean)."""
    if answer not in ("Yes", "No"):
        return False
    field, _ = FIELDS[params["var"]]
    others = [d for d in _days(*window(now, params["when"], params["span"])) if d != now]
    mean = sum(_value(world, place, d, field) for d in others) / len(others)
    value = _value(world, place, now, field)
    if (value > mean) == (answer == "Yes"):
        return _fill_to(world, place, now, field, value)
    return _fill_to(world, place, now, field, round(mean + 1.0, 1) if answer == "Yes" else 0.0)


def top_rise(
    world: WeatherWorld, places: Mapping[str, City], now: date, params: Mapping[str, str], field: str, answer: Any
) -> bool:
    """The answer's city rises the most from the day before to the day named (a degree more
    than the most of the others): its day is raised, unless a rule pinned it."""
    if answer not in places:
        return False
    day = named_day(now, params)
    before = day - timedelta(days=1)

    def rise(place: City) -> float:
        return _value(world, place, day, field) - _value(world, place, before, field)

    most = max(rise(place) for name, place in places.items() if name != answer)
    chosen = places[answer]
    if rise(chosen) > most:
        return _fill_to(world, chosen, day, field, _value(world, chosen, day, field))
    if _pinned(world, chosen, day, field):
        return False
    value = round(_value(world, chosen, before, field) + most + 1.0, 1)
    return _fill_to(world, chosen, day, field, value) and _fill_to(
        world, chosen, before, field, _value(world, chosen, before, field)
    )
