"""Weather's expert: solves a question of a known kind by calling the sandbox's tools, and
records the calls as the plan it replays. The answer it reaches is the task's gold answer, so
every generated answer is what the tools return."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date, timedelta
from typing import Any

from coevo.envs.toolusage.env import tool_line
from coevo.envs.weather.pins import (
    FIELDS,
    STREAK_DAYS,
    air_days,
    extreme_days,
    fahrenheit_field,
    longest_run,
    quantities,
    significant,
)
from coevo.envs.weather.recognise import RULES as RECOGNISED
from coevo.envs.weather.recognise import (
    CONDITIONS,
    PER_INCH,
    RELATION_WORDS,
    STATISTICS,
    day_of_last_month,
    named_day,
    past_years_days,
    point_day,
    question_days,
    window,
)
from coevo.envs.weather.toolkit import WeatherToolkit, today

#: Per variable a question names: the archive's tool, the forecast's, and the daily field.
SERIES = {
    "rain": ("get_historical_rain", "get_rain_forecast", "rain_sum"),
    "snow": ("get_historical_snow", "get_snow_forecast", "snowfall_sum"),
    "average temperature": ("get_historical_temp", "get_temp_forecast", "temperature_2m_mean"),
    "temperature": ("get_historical_temp", "get_temp_forecast", "temperature_2m_mean"),
    "high temperature": ("get_historical_temp", "get_temp_forecast", "temperature_2m_max"),
}
#: The tool for one day that is today, per variable.
CURRENT = {
    "rain": "get_current_rain",
    "snow": "get_current_snow",
    "average temperature": "get_current_temp",
    "temperature": "get_current_temp",
    "high temperature": "get_current_temp",
}


class Solver:
    """Calls tools on a throwaway toolkit and keeps the action lines."""

    def __init__(self, toolkit: WeatherToolkit) -> None:
        self.toolkit = toolkit
        self.lines: list[str] = []

    def call(self, tool: str, **arguments: Any) -> Any:
        self.lines.append(tool_line(tool, arguments))
        return self.toolkit.call(tool, arguments)

    def place(self, name: str) -> tuple[float, float]:
        first = self.call("get_latitude_longitude", name=name)["results"][0]
        return first["latitude"], first["longitude"]

    def home(self) -> tuple[tuple[float, float], date]:
        where = self.call("get_user_current_location")
        coords = self.place(where)
        now = self.call("get_user_current_date")
        return coords, today(now)

    def daily(self, tool: str, coords: tuple[float, float], start: date, end: date | None = None) -> dict[str, Any]:
        lat, lon = coords
        end = end or start
        if tool.startswith("get_current"):
            result = self.call(tool, latitude=lat, longitude=lon, current_date=start.isoformat())
        else:
            result = self.call(
                tool, latitude=lat, longitude=lon, start_date=start.isoformat(), end_date=end.isoformat()
            )
        daily: dict[str, Any] = result["daily"]
        return daily


def _mean_yesterday(s: Solver, p: Mapping[str, Any]) -> Any:
    coords, now = s.home()
    return s.daily("get_historical_temp", coords, now - timedelta(days=1))["temperature_2m_mean"][0]


def _max_last_year(s: Solver, p: Mapping[str, Any]) -> Any:
    coords, now = s.home()
    return s.daily("get_historical_temp", coords, now.replace(year=now.year - 1))["temperature_2m_max"][0]


def _min_today(s: Solver, p: Mapping[str, Any]) -> Any:
    coords, now = s.home()
    return s.daily("get_current_temp", coords, now)["temperature_2m_min"][0]


def _mean_tomorrow(s: Solver, p: Mapping[str, Any]) -> Any:
    coords, now = s.home()
    return s.daily("get_temp_forecast", coords, now + timedelta(days=1))["temperature_2m_mean"][0]


def _warmer_than_yesterday(s: Solver, p: Mapping[str, Any]) -> Any:
    coords, now = s.home()
    today_mean = s.daily("get_current_temp", coords, now)["temperature_2m_mean"][0]
    yesterday_mean = s.daily("get_historical_temp", coords, now - timedelta(days=1))["temperature_2m_mean"][0]
    return "Yes" if today_mean > yesterday_mean else "No"


def _rain_yesterday(s: Solver, p: Mapping[str, Any]) -> Any:
    coords, now = s.home()
    return s.daily("get_historical_rain", coords, now - timedelta(days=1))["rain_sum"][0]


def _snow_next_days(s: Solver, p: Mapping[str, Any]) -> Any:
    coords, now = s.home()
    series = s.daily("get_snow_forecast", coords, now + timedelta(days=1), now + timedelta(days=3))
    return round(sum(series["snowfall_sum"]), 2)


def _trip_range(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("get_user_current_date")
    coords = s.place(p["city"])
    day = date.fromisoformat(p["date"])
    series = s.daily("get_temp_forecast", coords, day)
    return round(series["temperature_2m_max"][0] - series["temperature_2m_min"][0], 1)


def _city_elevation(s: Solver, p: Mapping[str, Any]) -> Any:
    lat, lon = s.place(p["city"])
    return s.call("get_elevation", latitude=lat, longitude=lon)["elevation"][0]


def _air_quality_yesterday(s: Solver, p: Mapping[str, Any]) -> Any:
    coords, now = s.home()
    index = s.daily("get_historical_air_quality_index", coords, now - timedelta(days=1))["european_aqi_pm2_5"][0]
    return s.call("get_air_quality_level", air_quality_index=index)


def _distance_to(s: Solver, p: Mapping[str, Any]) -> Any:
    here = s.place(s.call("get_user_current_location"))
    there = s.place(p["city"])
    return s.call("get_distance", latitude1=here[0], longitude1=here[1], latitude2=there[0], longitude2=there[1])


def _height(s: Solver, coords: tuple[float, float]) -> Any:
    return s.call("get_elevation", latitude=coords[0], longitude=coords[1])["elevation"][0]


def _elevation_vs_home(s: Solver, p: Mapping[str, Any]) -> Any:
    there = _height(s, s.place(p["city"]))
    return there - _height(s, s.place(s.call("get_user_current_location")))


def _elevation_vs_city(s: Solver, p: Mapping[str, Any]) -> Any:
    return _height(s, s.place(p["city"])) - _height(s, s.place(p["other"]))


def _rain_day_order(s: Solver, p: Mapping[str, Any]) -> Any:
    """The rainier of two days of last month: its date, or its name as the question writes it
    ("3rd") where the question asks for no date; "Both" where they tie."""
    coords, now = s.home()
    first, second = day_of_last_month(now, p["first"]), day_of_last_month(now, p["second"])
    start, end = min(first, second), max(first, second)
    rain = s.daily("get_historical_rain", coords, start, end)["rain_sum"]
    one, two = rain[(first - start).days], rain[(second - start).days]
    if one == two:
        return "Both"
    day, written = (first, p["first"]) if one > two else (second, p["second"])
    return day.isoformat() if "YYYY-MM-DD" in p.get("goal", "") else written


def _window_sum(s: Solver, coords: tuple[float, float], now: date, p: Mapping[str, Any]) -> Any:
    """A window's total, to two decimals (in inches, to four, where the question asks so)."""
    series = _series(s, coords, now, p["var"], *window(now, p["when"], p["span"]))
    if p.get("unit") == "inches":
        return round(sum(series) / PER_INCH[p["var"]], 4)
    return round(sum(series), 2)


def _days_meeting(
    s: Solver, coords: tuple[float, float], now: date, p: Mapping[str, Any], temperatures: bool = False
) -> list[dict[str, Any]]:
    """The records (date, rain, snow, and the temperatures where the condition names one or
    `temperatures`) of each day asked about that meets the question's condition."""
    condition = CONDITIONS[p["which"]]
    start, end = question_days(now, p)
    records = [
        {"time": (start + timedelta(days=i)).isoformat(), "rain_sum": r, "snowfall_sum": sn}
        for i, (r, sn) in enumerate(
            zip(_series(s, coords, now, "rain", start, end), _series(s, coords, now, "snow", start, end))
        )
    ]
    if condition.temperature is not None or temperatures:
        daily = _span(s, coords, now, "temperature", start, end)
        for i, record in enumerate(records):
            record.update({key: daily[key][i] for key in daily if key.startswith("temperature")})
    field = condition.temperature[0] if condition.temperature else None
    return [r for r in records if condition.meets(r["rain_sum"], r["snowfall_sum"], r[field] if field else 0.0)]


def _days_with(s: Solver, p: Mapping[str, Any]) -> Any:
    coords, now = _where(s, p)
    count = len(_days_meeting(s, coords, now, p))
    return count if "how many" in p["goal"].lower() else ("Yes" if count else "No")


def _precipitation_on_days_with(s: Solver, p: Mapping[str, Any]) -> Any:
    """Rain plus snow (or snow alone, where the question asks for snowfall) over the days that
    meet the condition; in inches where the question asks so."""
    coords, now = _where(s, p)
    days = _days_meeting(s, coords, now, p)
    total = sum(d["snowfall_sum"] if p.get("total") == "snowfall" else d["rain_sum"] + d["snowfall_sum"] for d in days)
    return round(total / PER_INCH["snow"], 4) if "in inches" in p["goal"] else round(total, 2)


def _compare(s: Solver, p: Mapping[str, Any]) -> Any:
    """Two (place, day) values compared, answered in the words the question offers: a city's
    name, warmer/colder/same, higher/lower/same, or Yes (the first is higher; where the
    question asks for a significant change, the first moved from the second by one) / No."""
    pin, goal = p["pin"], p["goal"]
    now = today(s.call("get_user_current_date"))
    values = []
    for where, day_key, *field in (pin["a"], pin["b"]):
        coords = s.place(s.call("get_user_current_location") if where == "home" else p[where])
        day = point_day(now, day_key, p)
        if field:
            values.append(_span(s, coords, now, pin["var"], day, day)[str(field[0])][0])
        else:
            values.append(_series(s, coords, now, pin["var"], day, day)[0])
    a, b = values
    if "change" in p:
        return "Yes" if significant(a, b, p.get("direction", "")) else "No"
    if goal.startswith("Which city"):
        return p["city"] if a > b else p["other"] if a < b else "Same"
    for more, less, same in RELATION_WORDS:
        if f"'{more}'" in goal or f"{more} or {less}" in goal:
            return more if a > b else less if a < b else same
    return "Yes" if a > b else "No"


def _difference(s: Solver, p: Mapping[str, Any]) -> Any:
    """One (place, day, field) value less another, to two decimals."""
    now = today(s.call("get_user_current_date"))
    values = []
    for where, day_key, field in (p["pin"]["a"], p["pin"]["b"]):
        day = point_day(now, day_key, p)
        tool = "get_historical_temp" if day < now else "get_temp_forecast" if day > now else "get_current_temp"
        place = s.call("get_user_current_location") if where == "home" else p[where]
        values.append(s.daily(tool, s.place(place), day)[field][0])
    return round(values[0] - values[1], 2)


def _trend(s: Solver, p: Mapping[str, Any]) -> Any:
    """Increasing or decreasing (every day above / below the one before), stable (all equal),
    else fluctuating; capitalised where the question's options are."""
    coords, now = _where(s, p)
    values = _series(s, coords, now, p.get("var", "temperature"), *window(now, p["when"], p["span"]))
    steps = [b - a for a, b in zip(values, values[1:])]
    if all(d == 0 for d in steps):
        word = "stable"
    elif all(d > 0 for d in steps):
        word = "increasing"
    elif all(d < 0 for d in steps):
        word = "decreasing"
    else:
        word = "fluctuating"
    return word.capitalize() if word.capitalize() in p["goal"] else word


def _temperature_range(s: Solver, p: Mapping[str, Any]) -> Any:
    """[the lowest minimum, the highest maximum] over the window (or month)."""
    coords, now = _where(s, p)
    daily = _span(s, coords, now, "temperature", *question_days(now, p))
    return [min(daily["temperature_2m_min"]), max(daily["temperature_2m_max"])]


def _day_forecast(s: Solver, p: Mapping[str, Any]) -> Any:
    """A day's minimum, mean and maximum, in order."""
    coords, now = _where(s, p)
    day = named_day(now, p)
    tool = "get_historical_temp" if day < now else "get_temp_forecast" if day > now else "get_current_temp"
    daily = s.daily(tool, coords, day)
    return sorted(daily[f"temperature_2m_{key}"][0] for key in ("min", "mean", "max"))


def _temperature_tool(day: date, now: date) -> str:
    return "get_historical_temp" if day < now else "get_temp_forecast" if day > now else "get_current_temp"


def _window_max(s: Solver, p: Mapping[str, Any]) -> Any:
    """The window's highest daily value: the maximum temperature, or the variable named."""
    coords, now = _where(s, p)
    start, end = window(now, p["when"], p["span"])
    if "var" in p:
        return max(_series(s, coords, now, p["var"], start, end))
    return max(s.daily(_temperature_tool(start, now), coords, start, end)["temperature_2m_max"])


def _extreme_of_days(s: Solver, p: Mapping[str, Any]) -> Any:
    """The date whose daily mean is the highest (lowest, coldest) of the days weighed."""
    coords, now = s.home()
    days = extreme_days(now, p)
    if "first" in p:
        means = {d: s.daily(_temperature_tool(d, now), coords, d)["temperature_2m_mean"][0] for d in days}
    else:
        means = dict(zip(days, s.daily("get_historical_temp", coords, days[0], days[-1])["temperature_2m_mean"]))
    pick = max if p["most"] == "highest" else min
    return pick(means, key=lambda d: means[d]).isoformat()


def _air_quality_on_a_day(s: Solver, p: Mapping[str, Any]) -> Any:
    now = today(s.call("get_user_current_date"))
    coords = s.place(p["city"])
    day = named_day(now, p)
    tool = "get_historical_air_quality_index" if day < now else "get_current_air_quality_index"
    index = s.daily(tool, coords, day)["european_aqi_pm2_5"][0]
    return s.call("get_air_quality_level", air_quality_index=index)


def _best_air(s: Solver, p: Mapping[str, Any]) -> Any:
    """The city with the lowest air-quality index (summed over the days asked)."""
    now = today(s.call("get_user_current_date"))
    totals = {}
    for name in (p["city"], p["other"], p["third"]):
        coords = s.place(name)
        days = air_days(now, p["span"])
        tool = "get_current_air_quality_index" if p["span"] == "today" else "get_historical_air_quality_index"
        totals[name] = sum(s.daily(tool, coords, days[0], days[-1])["european_aqi_pm2_5"])
    return min(totals, key=lambda name: totals[name])


def _snow_difference(s: Solver, p: Mapping[str, Any]) -> Any:
    now = today(s.call("get_user_current_date"))
    day = now + timedelta(days=1 if p["day"] == "tomorrow" else 0)
    first = _series(s, s.place(p["city"]), now, "snow", day, day)[0]
    second = _series(s, s.place(p["other"]), now, "snow", day, day)[0]
    return round(first - second, 2)


def _where(s: Solver, p: Mapping[str, Any]) -> tuple[tuple[float, float], date]:
    """The place a question names (else the user's) and today."""
    if "city" in p:
        now = today(s.call("get_user_current_date"))
        return s.place(p["city"]), now
    return s.home()


def _span(s: Solver, coords: tuple[float, float], now: date, var: str, start: date, end: date) -> dict[str, list[Any]]:
    """A variable's daily answer from start to end: the days before today from the archive,
    today from the current tool, the days after from the forecast (one call each, or one per
    31 days where the tools' limit needs more)."""
    archive, forecast, _ = SERIES[var]
    day = timedelta(days=1)
    parts = []
    if start < now:
        first, last = start, min(end, now - day)
        while last - first > _MOST_DAYS:  # the archive's limit: 30 days between the ends
            parts.append((archive, first, first + _MOST_DAYS))
            first += _MOST_DAYS + day
        parts.append((archive, first, last))
    if start <= now <= end:
        parts.append((CURRENT[var], now, now))
    if end > now:
        parts.append((forecast, max(start, now + day), end))
    merged: dict[str, list[Any]] = {}
    for tool, first, last in parts:
        for key, values in s.daily(tool, coords, first, last).items():
            merged.setdefault(key, []).extend(values)
    return merged


#: The most days a query's end may lie after its start (the original's check).
_MOST_DAYS = timedelta(days=30)


def _series(s: Solver, coords: tuple[float, float], now: date, var: str, start: date, end: date) -> list[Any]:
    """A variable's daily values from start to end (archive, today's, forecast)."""
    return _span(s, coords, now, var, start, end)[SERIES[var][2]]


def _rain_today(s: Solver, p: Mapping[str, Any]) -> Any:
    coords, now = s.home()
    return s.daily("get_current_rain", coords, now)["rain_sum"][0]


def _day_of_month(s: Solver, p: Mapping[str, Any]) -> Any:
    coords, now = _where(s, p)
    day = named_day(now, p)
    return _series(s, coords, now, p["var"], day, day)[0]


def _window_mean(s: Solver, p: Mapping[str, Any]) -> Any:
    """The window's daily mean, to three decimals (the data's own carry one or two)."""
    coords, now = _where(s, p)
    values = _series(s, coords, now, p["var"], *window(now, p["when"], p["span"]))
    if p.get("unit") == "inches":
        return round(sum(values) / len(values) / PER_INCH[p["var"]], 4)
    return round(sum(values) / len(values), 3)


def _rainy_days(s: Solver, p: Mapping[str, Any]) -> Any:
    coords, now = _where(s, p)
    return sum(1 for v in _series(s, coords, now, p["var"], *window(now, p["when"], p["span"])) if v > 0)


def _wet_streak(s: Solver, p: Mapping[str, Any]) -> Any:
    """Days in a row with rain (snow) from the start day, over the next STREAK_DAYS days."""
    coords, now = _where(s, p)
    start = now + timedelta(days=2 if p["start"] == "the day after tomorrow" else 1)
    streak = 0
    for value in _series(s, coords, now, p["var"], start, start + timedelta(days=STREAK_DAYS - 1)):
        if value <= 0:
            break
        streak += 1
    return streak


def _window_total(s: Solver, p: Mapping[str, Any]) -> Any:
    if "city" in p:
        now = today(s.call("get_user_current_date"))
        coords = s.place(p["city"])
    else:
        coords, now = s.home()
    return _window_sum(s, coords, now, p)


def _window_compare(s: Solver, p: Mapping[str, Any]) -> Any:
    """Which of two cities has more (or, for "lowest"/"least", less) rain or snow in a window."""
    now = today(s.call("get_user_current_date"))
    one = _window_sum(s, s.place(p["city"]), now, p)
    two = _window_sum(s, s.place(p["other"]), now, p)
    if "'Yes'" in p["goal"]:  # is the first city's higher
        return "Yes" if one > two else "No"
    if one == two:
        return "Same"
    more = p["city"] if one > two else p["other"]
    less = p["other"] if one > two else p["city"]
    return less if p["most"] in ("lowest", "least") else more


def _none_word(goal: str) -> str:
    """What a question offers for "no such day" ('No snowfall'), else None."""
    offered = re.findall(r"'([^']+)'", goal)
    return next((word for word in offered if word.lower().startswith("no ")), "None")


def _stat_on_days_with(s: Solver, p: Mapping[str, Any]) -> Any:
    """The mean (or the maximum) of a daily value over the days meeting the condition, as
    Python divides (unrounded); the question's word for none where no day meets it."""
    coords, now = _where(s, p)
    field, how = STATISTICS[p["stat"]]
    days = _days_meeting(s, coords, now, p, temperatures=field.startswith("temperature"))
    values = [d[field] for d in days]
    if not values:
        return _none_word(p["goal"])
    return max(values) if how == "max" else sum(values) / len(values)


def _which_days(s: Solver, p: Mapping[str, Any]) -> Any:
    """The dates that meet the condition: all as a list where the question asks a list, else
    the first, or 'None'."""
    coords, now = _where(s, p)
    dates = [d["time"] for d in _days_meeting(s, coords, now, p)]
    if "list" in p["goal"]:
        return dates
    return dates[0] if dates else "None"


def _extreme_amount_days(s: Solver, p: Mapping[str, Any]) -> Any:
    """The dates with the highest (lowest) rain, snow or both together: all tied as a list where
    the question asks a list, else the first; 'None' where the highest is no precipitation."""
    coords, now = _where(s, p)
    start, end = question_days(now, p)
    names = ("rain", "snow") if p["var"] == "combined" else (p["var"],)
    series = [_series(s, coords, now, name, start, end) for name in names]
    amounts = [round(sum(values), 2) for values in zip(*series)]
    highest = p["most"] in ("highest", "most")
    best = max(amounts) if highest else min(amounts)
    if highest and best <= 0:
        return "None"
    dates = [(start + timedelta(days=i)).isoformat() for i, v in enumerate(amounts) if v == best]
    return dates if "list" in p["goal"] else dates[0]


def _totals(s: Solver, p: Mapping[str, Any]) -> Any:
    """Each quantity's total over the days asked about (two decimals): a list where the
    question asks an array or a list, else the one number."""
    coords, now = _where(s, p)
    start, end = question_days(now, p)
    values = [round(sum(_series(s, coords, now, var, start, end)), 2) for var in quantities(p)]
    goal = p["goal"]
    return values if "array" in goal or "list" in goal else values[0]


def _top_city(s: Solver, p: Mapping[str, Any]) -> Any:
    """The city (of three) with the highest value of the pin's field on the day named."""
    now = today(s.call("get_user_current_date"))
    day = named_day(now, p)
    field = p["pin"]["field"]
    values = {}
    for name in (p["city"], p["other"], p["third"]):
        values[name] = s.daily(_temperature_tool(day, now), s.place(name), day)[field][0]
    return max(values, key=lambda name: values[name])


def _city_window_means(s: Solver, p: Mapping[str, Any]) -> Any:
    """Each city's mean over the window, to three decimals."""
    now = today(s.call("get_user_current_date"))
    start, end = window(now, p["when"], p["span"])
    means = []
    for name in (p["city"], p["other"]):
        values = _series(s, s.place(name), now, p["var"], start, end)
        means.append(round(sum(values) / len(values), 3))
    return means


def _mean_of_cities(s: Solver, p: Mapping[str, Any]) -> Any:
    """The three cities' values that day, averaged to three decimals."""
    now = today(s.call("get_user_current_date"))
    day = point_day(now, p["pin"]["day"], p)
    field = p["pin"]["field"]
    values = [s.daily(_temperature_tool(day, now), s.place(p[k]), day)[field][0] for k in ("city", "other", "third")]
    return round(sum(values) / len(values), 3)


def _daily_values(s: Solver, p: Mapping[str, Any]) -> Any:
    """Each day's value, in order."""
    coords, now = _where(s, p)
    return _series(s, coords, now, p["var"], *question_days(now, p))


def _fahrenheit_day(s: Solver, p: Mapping[str, Any]) -> Any:
    """The day's mean (at night its minimum) in whole degrees Fahrenheit."""
    coords, now = _where(s, p)
    day = named_day(now, p)
    celsius = s.daily(_temperature_tool(day, now), coords, day)[fahrenheit_field(p)][0]
    return round(celsius * 9 / 5 + 32)


def _same_air_level(s: Solver, p: Mapping[str, Any]) -> Any:
    """Whether the named city's air-quality level today is the user's (the tools have no
    air-quality forecast, so both are today's)."""
    now = today(s.call("get_user_current_date"))
    levels = []
    for name in (p["city"], s.call("get_user_current_location")):
        index = s.daily("get_current_air_quality_index", s.place(name), now)["european_aqi_pm2_5"][0]
        levels.append(s.call("get_air_quality_level", air_quality_index=index))
    return "Yes" if levels[0] == levels[1] else "No"


def _past_years(s: Solver, p: Mapping[str, Any]) -> dict[date, Any]:
    """The variable on the same day in each of the past years asked about (one call each)."""
    coords, now = s.home()
    field = FIELDS[p["var"]][0]
    return {day: s.daily(SERIES[p["var"]][0], coords, day)[field][0] for day in past_years_days(now, p)}


def _past_years_max(s: Solver, p: Mapping[str, Any]) -> Any:
    return max(_past_years(s, p).values())


def _past_years_order(s: Solver, p: Mapping[str, Any]) -> Any:
    """The year with the most on the day ('Same' where every year has as much)."""
    values = _past_years(s, p)
    if len(set(values.values())) == 1:
        return "Same"
    return str(max(values, key=lambda day: values[day]).year)


def _parts(s: Solver, p: Mapping[str, Any]) -> Any:
    """Two questions in one: each part solved as its own kind asks, the answers as a list."""
    return [KINDS[kind](s, {**p, **extra}) for kind, extra in p["pin"]["parts"]]


def _daily_tuples(s: Solver, p: Mapping[str, Any]) -> Any:
    """[date, first, second] for each day of the window, the values as text, in the question's
    order of the variables."""
    coords, now = _where(s, p)
    start, end = window(now, p["when"], p["span"])
    first, second = (_series(s, coords, now, p[key], start, end) for key in ("first", "second"))
    return [[(start + timedelta(days=i)).isoformat(), str(a), str(b)] for i, (a, b) in enumerate(zip(first, second))]


def _longest_streak_of_two(s: Solver, p: Mapping[str, Any]) -> Any:
    """The city with the longer run of wet days in the window ('Same' where they match)."""
    now = today(s.call("get_user_current_date"))
    runs = [
        longest_run(_series(s, s.place(p[key]), now, p["var"], *window(now, p["when"], p["span"])))
        for key in ("city", "other")
    ]
    return p["city"] if runs[0] > runs[1] else p["other"] if runs[1] > runs[0] else "Same"


def _today_above_week_mean(s: Solver, p: Mapping[str, Any]) -> Any:
    """Whether today's value is above the window's daily mean (today among its days)."""
    coords, now = s.home()
    start, end = window(now, "this", p["span"])
    values = _series(s, coords, now, p["var"], start, end)
    return "Yes" if values[(now - start).days] > sum(values) / len(values) else "No"


def _biggest_rise(s: Solver, p: Mapping[str, Any]) -> Any:
    """The city (of three) whose value rises the most from the day before to the day named."""
    now = today(s.call("get_user_current_date"))
    day = named_day(now, p)
    field = p["pin"]["field"]
    rises = {}
    for name in (p["city"], p["other"], p["third"]):
        before, on = _span(s, s.place(name), now, "temperature", day - timedelta(days=1), day)[field]
        rises[name] = on - before
    return max(rises, key=lambda name: rises[name])


def _prescribed(s: Solver, p: Mapping[str, Any]) -> Any:
    """The one answer the question itself prescribes ("Please provide the answer as 'Unknown'")."""
    return p["word"]


KINDS: dict[str, Callable[[Solver, Mapping[str, Any]], Any]] = {
    "mean_yesterday": _mean_yesterday,
    "max_last_year": _max_last_year,
    "min_today": _min_today,
    "mean_tomorrow": _mean_tomorrow,
    "warmer_than_yesterday": _warmer_than_yesterday,
    "rain_yesterday": _rain_yesterday,
    "snow_next_days": _snow_next_days,
    "trip_range": _trip_range,
    "city_elevation": _city_elevation,
    "air_quality_yesterday": _air_quality_yesterday,
    # kinds only AgentBoard's file asks (envs/weather/recognise.py)
    "distance_to": _distance_to,
    "elevation_vs_home": _elevation_vs_home,
    "elevation_vs_city": _elevation_vs_city,
    "rain_day_order": _rain_day_order,
    "window_total": _window_total,
    "window_compare": _window_compare,
    "rain_today": _rain_today,
    "day_of_month": _day_of_month,
    "window_mean": _window_mean,
    "rainy_days": _rainy_days,
    "wet_streak": _wet_streak,
    "days_with": _days_with,
    "days_with_tomorrow": _days_with,
    "precipitation_on_days_with": _precipitation_on_days_with,
    "snow_difference": _snow_difference,
    "trend": _trend,
    "temperature_range": _temperature_range,
    "day_forecast": _day_forecast,
    "window_max": _window_max,
    "rain_tomorrow": _days_with,
    "rain_weekend": _days_with,
    "extreme_of_days": _extreme_of_days,
    "air_quality_on_a_day": _air_quality_on_a_day,
    "best_air": _best_air,
    "stat_on_days_with": _stat_on_days_with,
    "which_days": _which_days,
    "extreme_amount_days": _extreme_amount_days,
    "totals": _totals,
    "daily_values": _daily_values,
    "warmest_city_on_a_day": _top_city,
    "two_cities_window_means": _city_window_means,
    "mean_of_cities": _mean_of_cities,
    "warmer_city_over_window": _window_compare,
    "fahrenheit_on_a_weekday": _fahrenheit_day,
    "same_air_level_there_and_here": _same_air_level,
    "most_on_this_day_past_years": _past_years_max,
    "year_with_most_on_a_day": _past_years_order,
    "daily_tuples": _daily_tuples,
    "longest_wet_streak_of_two": _longest_streak_of_two,
    "today_above_week_mean": _today_above_week_mean,
    "biggest_rise_on_a_weekday": _biggest_rise,
    "prescribed_answer": _prescribed,
}
#: Kinds the loader recognises that are one comparison or one difference (the sides are in
#: their pin rule): solved by that rule.
BY_RULE = {
    kind: {"compare": _compare, "difference": _difference}[rule["pin"]["rule"]]
    for kind, rule in RECOGNISED.items()
    if kind != "about" and rule["pin"]["rule"] in ("compare", "difference")
}


def solve(kind: str, toolkit: WeatherToolkit, params: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """(answer, action lines ending with finish) for a question of `kind`."""
    solver = Solver(toolkit)
    if kind in BY_RULE:
        answer = BY_RULE[kind](solver, params)
    elif RECOGNISED.get(kind, {}).get("pin", {}).get("rule") == "parts":
        answer = _parts(solver, params)
    else:
        answer = KINDS[kind](solver, params)
    if isinstance(answer, list):
        answer = sorted(answer)  # what finish answers (it sorts a list, as the original does)
    solver.lines.append(tool_line("finish", {"answer": answer}))
    return answer, solver.lines
