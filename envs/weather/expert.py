"""Weather's expert: solves a question of a known kind by calling the sandbox's tools, and
records the calls as the plan it replays. The answer it reaches is the task's gold answer, so
every generated answer is what the tools return."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, timedelta
from typing import Any

from coevo.envs.toolusage.env import tool_line
from coevo.envs.weather.toolkit import WeatherToolkit, today


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
}


def solve(kind: str, toolkit: WeatherToolkit, params: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """(answer, action lines ending with finish) for a question of `kind`."""
    solver = Solver(toolkit)
    answer = KINDS[kind](solver, params)
    solver.lines.append(tool_line("finish", {"answer": answer}))
    return answer, solver.lines
