"""Reading a loaded Weather question: which kind it is and what it names (data/templates.json
"recognise": per kind, regular expressions with named groups (and "defaults" for what the
kind implies but does not name) and the pin rule that makes the
sandbox hold the file's answer; the first kind with a matching expression wins).

Named groups: `city` and `other` (places), `var` (rain or snow), `when` (past, last or next),
`span` (how many days: "week", "2 weeks", "5 days", "48 hours"), `day` and `month` (a day of
this, next or last month; `month` alone: that whole month; `end_day`: the days from `day` to
it; `other_day`: a second day of that month), `weekday` (the next such day), `on` (today,
tomorrow), `start` (tomorrow or the day after), `most` (higher, highest, lowest or least),
`first` and `second` (days of last month as written, "3rd", "22th"), `year` (next: a
holiday of next year), `stat` (a statistic of
the days meeting a condition), `amount` and `also` (the quantities a totals question names),
`change` and `direction` (a significant, sudden or noticeable change: drop, increase, else
either way), `night` (a day's minimum), `years` (how many past years), `word` (an answer the
question prescribes); in a per-day tuples question `first` and `second` are its variables.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from coevo.envs.toolusage.recognise import first_match
from coevo.envs.weather.world import DATA

#: Inches in the unit each variable comes in (rain mm, snow cm).
PER_INCH = {"rain": 25.4, "snow": 2.54}
#: Where a city's name may stand in a pattern (`{city}` in the data file).
CITY = r"[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)*"
_DATA: dict[str, Any] = json.loads((DATA / "templates.json").read_text(encoding="utf-8"))
RULES: dict[str, Any] = _DATA["recognise"]


@dataclass(frozen=True)
class Condition:
    """What a question's `which` asks of a day (data/templates.json "conditions")."""

    rain: bool | None = None
    snow: bool | None = None
    rain_above: float | None = None
    rain_below: float | None = None
    #: (daily temperature field, "<" or ">", degrees)
    temperature: tuple[str, str, float] | None = None
    #: rain plus snow above 0 (True) or 0 (False)
    precipitation: bool | None = None
    snow_above: float | None = None
    #: "rain" (more rain than snow) or "snow" (more snow than rain)
    more: str | None = None

    def rain_ok(self, rain: float) -> bool:
        if self.rain is None:
            return True
        if not self.rain:
            return rain <= 0
        above = self.rain_above if self.rain_above is not None else 0.0
        return rain > above and (self.rain_below is None or rain < self.rain_below)

    def snow_ok(self, snow: float) -> bool:
        if self.snow is None:
            return True
        return snow > (self.snow_above or 0.0) if self.snow else snow <= 0

    def mix_ok(self, rain: float, snow: float) -> bool:
        """The rule on rain and snow together: some precipitation, or more of one than the other."""
        if self.precipitation is not None and (rain + snow > 0) != self.precipitation:
            return False
        if self.more is None:
            return True
        return rain > snow if self.more == "rain" else snow > rain

    def temperature_ok(self, value: float) -> bool:
        if self.temperature is None:
            return True
        _, op, limit = self.temperature
        return value < limit if op == "<" else value > limit

    def meets(self, rain: float, snow: float, temperature: float) -> bool:
        return (
            self.rain_ok(rain) and self.snow_ok(snow) and self.mix_ok(rain, snow) and self.temperature_ok(temperature)
        )


def _condition(row: dict[str, Any]) -> Condition:
    temperature = row.get("temperature")
    return Condition(
        row.get("rain"),
        row.get("snow"),
        row.get("rain_above"),
        row.get("rain_below"),
        (str(temperature[0]), str(temperature[1]), float(temperature[2])) if temperature else None,
        row.get("precipitation"),
        row.get("snow_above"),
        row.get("more"),
    )


CONDITIONS: dict[str, Condition] = {k: _condition(v) for k, v in _DATA["conditions"].items() if k != "about"}
#: A statistic of the days meeting a condition -> (daily field, "mean" or "max").
STATISTICS: dict[str, tuple[str, str]] = {k: (v[0], v[1]) for k, v in _DATA["statistics"].items() if k != "about"}
#: A quantity a totals question names -> the variable it reads (rain or snow).
QUANTITIES: dict[str, str] = {k: v for k, v in _DATA["quantities"].items() if k != "about"}
#: The words a comparison offers: (the first side higher, lower, the same).
RELATION_WORDS: list[list[str]] = _DATA["relation_words"]["words"]
#: Degrees a "significant" ("sudden", "noticeable") temperature change reaches: our reading,
#: the file's questions set none (data/templates.json "significant_change").
SIGNIFICANT: float = float(_DATA["significant_change"]["degrees"])
#: A holiday's name -> [month, day], or [month, weekday, n] (the n-th such weekday), this year.
HOLIDAYS: dict[str, list[Any]] = {k: v for k, v in _DATA["holidays"].items() if k != "about"}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_PATTERNS = {
    kind: [re.compile(p.replace("{city}", CITY)) for p in rule["patterns"]]
    for kind, rule in RULES.items()
    if kind != "about"
}


@dataclass(frozen=True)
class Question:
    kind: str
    params: dict[str, str]
    #: The pin rule of the kind (data/templates.json), read by envs/weather/pins.py.
    pin: dict[str, Any]


def recognise(goal: str) -> Question | None:
    found = first_match(_PATTERNS, goal)
    if found is None:
        return None
    kind, named = found
    params = {**RULES[kind].get("defaults", {}), **named}  # what the kind implies
    if "span" in params:
        params.setdefault("when", "next")  # "tomorrow": the next day
    return Question(kind, params, dict(RULES[kind]["pin"]))


_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10}


def span_days(span: str) -> int:
    """Days in a question's span: "week" 7, "2 weeks" 14, "month" 30, "5 days" or "five days" 5,
    "48 hours" 2, "tomorrow" 1."""
    first = span.split()[0]
    number = int(first) if first.isdigit() else _WORDS.get(first, 1)
    if "week" in span:
        return 7 * number
    if "year" in span:
        return 365 * number
    if "month" in span:
        return 30 * number
    if "hour" in span:
        return number // 24
    return number


def window(now: date, when: str, span: str) -> tuple[date, date]:
    """The days a question's window covers: the past (last) N days end yesterday, the next
    (upcoming) N days start tomorrow, the weekend is the next Saturday and Sunday, "this month
    so far" the 1st to yesterday, "the first week of this month" its 1st to 7th, those before
    today where today is in it, "this week" Monday to Sunday."""
    if span == "this month so far":
        return now.replace(day=1), now - timedelta(days=1)
    if span == "this week":  # Monday to Sunday, today among them
        monday = now - timedelta(days=now.weekday())
        return monday, monday + timedelta(days=6)
    if span == "first week of this month":
        first = now.replace(day=1)
        return first, min(first + timedelta(days=6), max(first, now - timedelta(days=1)))
    if span == "weekend":  # the first Saturday after today, and its Sunday
        saturday = now + timedelta(days=(5 - now.weekday()) % 7 or 7)
        return saturday, saturday + timedelta(days=1)
    days = span_days(span)
    if when in ("next", "upcoming"):
        return now + timedelta(days=1), now + timedelta(days=days)
    return now - timedelta(days=days), now - timedelta(days=1)


def day_of_month(now: date, month: str, day: str) -> date:
    """The `day` of this, next (upcoming) or last month (relative to `now`)."""
    return first_of_month(now, month).replace(day=int(day))


def first_of_month(now: date, month: str) -> date:
    """The 1st of this, next (upcoming) or last month, or of a month named (this year's)."""
    if month in MONTHS:
        return date(now.year, MONTHS.index(month) + 1, 1)
    first = now.replace(day=1)
    if month == "last":
        return (first - timedelta(days=1)).replace(day=1)
    if month in ("next", "upcoming"):
        return (first + timedelta(days=32)).replace(day=1)
    return first


def _holiday(year: int, spec: list[Any]) -> date:
    """[month, day], or [month, weekday, n]: the n-th such weekday of the month."""
    if len(spec) == 2:
        return date(year, int(spec[0]), int(spec[1]))
    first = date(year, int(spec[0]), 1)
    offset = (WEEKDAYS.index(str(spec[1])) - first.weekday()) % 7
    return first + timedelta(days=offset + 7 * (int(spec[2]) - 1))


def named_day(now: date, params: Mapping[str, Any]) -> date:
    """The one day a question names: a holiday this year, the next such weekday after today,
    today or tomorrow, or a day of this, next or last month."""
    if "holiday" in params:  # this year's, or next year's where the question says so
        return _holiday(now.year + (1 if params.get("year") == "next" else 0), HOLIDAYS[params["holiday"]])
    if "weekday" in params:
        return now + timedelta(days=(WEEKDAYS.index(params["weekday"]) - now.weekday()) % 7 or 7)
    if "on" in params:
        return point_day(now, params["on"], params)
    return day_of_month(now, params["month"], params["day"])


def question_days(now: date, params: Mapping[str, Any]) -> tuple[date, date]:
    """The days a question asks about: from a day of a month to another (`end_day`), the one
    day it names, a whole month it names (`month` alone), else its window."""
    if "end_day" in params:
        return day_of_month(now, params["month"], params["day"]), day_of_month(now, params["month"], params["end_day"])
    if any(key in params for key in ("holiday", "day", "weekday", "on")):
        day = named_day(now, params)
        return day, day
    if "month" in params:
        first = first_of_month(now, params["month"])
        return first, (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    return window(now, params["when"], params["span"])


def point_day(now: date, key: str, params: Mapping[str, Any]) -> date:
    """The day a comparison's side names: today, yesterday, tomorrow, the day after tomorrow,
    this day last year / five years ago / last month, this week's end (Sunday), the last of the
    next 7 days, the coming
    weekend's Saturday or Sunday, or the day the question names (named_day)."""
    shifts = {"today": 0, "yesterday": -1, "tomorrow": 1, "after_tomorrow": 2}
    if key in shifts:
        return now + timedelta(days=shifts[key])
    if key == "last_year":
        return now.replace(year=now.year - 1)
    if key == "five_years_ago":
        return now.replace(year=now.year - 5)
    if key == "last_month":
        return (now.replace(day=1) - timedelta(days=1)).replace(day=now.day)
    if key == "week_end":  # this week's Sunday
        return now + timedelta(days=6 - now.weekday())
    if key == "week_ahead_end":  # the last day of the next 7
        return now + timedelta(days=7)
    if key in ("weekend_saturday", "weekend_sunday"):  # the coming weekend's
        saturday, sunday = window(now, "next", "weekend")
        return saturday if key == "weekend_saturday" else sunday
    if key == "other_day":
        return day_of_month(now, params["month"], params["other_day"])
    return named_day(now, params)


def day_of_last_month(now: date, written: str) -> date:
    """ "22nd" (or "22th") of the month before `now`'s."""
    first_of_this = now.replace(day=1)
    last_month = first_of_this - timedelta(days=1)
    return last_month.replace(day=int(re.match(r"\d+", written).group()))  # type: ignore[union-attr]


def past_years_days(now: date, params: Mapping[str, Any]) -> list[date]:
    """The same day in each of the `years` years before this one (today's, or the month and
    day the question names), the latest first."""
    years = int(params["years"])
    if "month" in params:
        month, day = MONTHS.index(params["month"]) + 1, int(params["day"])
        return [date(now.year - k, month, day) for k in range(1, years + 1)]
    return [now.replace(year=now.year - k) for k in range(1, years + 1)]
