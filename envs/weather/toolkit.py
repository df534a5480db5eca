"""Weather's tools over the sandbox, answering as the original's toolkit does over Open-Meteo:
the same checks (dates before or after the user's current date, at most 30 days a query), the
same cleaned response shapes, and Open-Meteo's own error bodies for what it refuses (a
coordinate that is not a number or out of range, reversed or out-of-range dates)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from copy import deepcopy
from datetime import date, datetime, timedelta
from typing import Any

from geopy.distance import geodesic

from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.toolkit import Toolkit
from coevo.envs.weather.world import FIRST_DATE, LAST_DATE, WeatherWorld, grid

SPAN_ERROR = (
    "Error: Sorry, at present, we support a maximum time span of 30 days between start_date and end_date in a "
    "single query. Your input exceeds this range. You can split your current query into multiple sub-queries "
    "that meet our criteria."
)
#: Daily variables of each query kind, with their units.
TEMPERATURE = {"temperature_2m_max": "°C", "temperature_2m_min": "°C", "temperature_2m_mean": "°C"}
RAIN = {"rain_sum": "mm"}
SNOW = {"snowfall_sum": "cm"}
AQI = {"european_aqi_pm2_5": "EAQI"}


def _day(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%d")


def _within_30_days(start: str, end: str) -> bool:
    return _day(end) - _day(start) <= timedelta(days=30)


def _service_error(reason: str) -> str:
    return '{"reason":"' + reason + '","error":true}'


def _coordinate(value: Any, key: str) -> float | str:
    """The coordinate as the service reads the query string, or its error body."""
    text = str(value)
    try:
        number = float(text)
    except ValueError:
        return _service_error(f"Cannot initialize Float from invalid String value {text} for key {key}")
    limit = 90 if key.startswith("latitude") else 180
    if not -limit <= number <= limit:
        name = "Latitude" if key.startswith("latitude") else "Longitude"
        return _service_error(f"{name} must be in range of -{limit} to {limit}°. Given: {number}.")
    return number


def clean_subgoal(result: Any) -> Any:
    """The original's `clean_observation`: a temperature answer's subgoal drops its series."""
    cleaned = deepcopy(result)
    if isinstance(cleaned, dict) and "temperature_2m_max" in cleaned.get("daily", {}):
        for key in TEMPERATURE:
            cleaned["daily"].pop(key)
    return cleaned


def air_quality_level(index: Any) -> str:
    """The original's bands, gaps included (20 < index <= 21 falls to the last band)."""
    if index <= 20:
        return "good"
    if 21 < index <= 40:
        return "fair"
    if 41 < index <= 60:
        return "moderate"
    if 61 < index <= 80:
        return "poor"
    if 81 < index <= 100:
        return "very poor"
    return "extremely poor"


class WeatherToolkit(Toolkit):
    def __init__(self, specs: Sequence[ToolSpec], world: WeatherWorld, current_date: str, current_location: str):
        super().__init__(specs)
        self.world = world
        self.current_date = current_date
        self.current_location = current_location

    def subgoal(self, tool: str, result: Any) -> Any:
        return clean_subgoal(result)

    # ------------------------------------------------------------ the user
    def get_user_current_date(self) -> tuple[bool, Any]:
        return True, self.current_date

    def get_user_current_location(self) -> tuple[bool, Any]:
        return True, self.current_location

    # ------------------------------------------------------------ the archive
    def _dates_error(self, start: Any, end: Any, historical: bool) -> str | None:
        """The original's checks against the user's current date (before it for the archive,
        after it for a forecast)."""
        current = _day(self.current_date)
        for name, value in (("start_date", start), ("end_date", end)):
            if value is None:
                continue
            if historical and _day(value) >= current:
                return f"Error: {name} should be earlier than current_date"
            if not historical and _day(value) <= current:
                return f"Error: {name} should be later than current_date"
        return None

    def _series(
        self, latitude: Any, longitude: Any, start: Any, end: Any, variables: Mapping[str, str]
    ) -> tuple[bool, Any]:
        """The archive's daily answer for the variables, cleaned as the original cleans it."""
        lat = _coordinate(latitude, "latitude")
        if isinstance(lat, str):
            return False, lat
        lon = _coordinate(longitude, "longitude")
        if isinstance(lon, str):
            return False, lon
        first, last = _day(start).date(), _day(end).date()
        for name, value in (("start_date", first), ("end_date", last)):
            if not FIRST_DATE <= value <= LAST_DATE:
                return False, _service_error(
                    f"Parameter '{name}' is out of allowed range from {FIRST_DATE} to {LAST_DATE}"
                )
        if last < first:
            return False, _service_error("End-date must be larger or equals than start-date")
        days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
        records = [self.world.day(lat, lon, d) for d in days]
        daily: dict[str, list[Any]] = {"time": [d.isoformat() for d in days]}
        for key in variables:
            daily[key] = [getattr(r, key) for r in records]
        return True, {
            "latitude": grid(lat),
            "longitude": grid(lon),
            "daily_units": {"time": "iso8601", **variables},
            "daily": daily,
        }

    def _archive(
        self, latitude: Any, longitude: Any, start: Any, end: Any, variables: Mapping[str, str], historical: bool
    ) -> tuple[bool, Any]:
        """The original's `get_historical_*`: `historical` False when a forecast or a current
        query calls it (no check against the current date then)."""
        if historical:
            error = self._dates_error(start, end, historical=True)
            if error is not None:
                return False, error
        if not _within_30_days(start, end):
            return False, SPAN_ERROR
        return self._series(latitude, longitude, start, end, variables)

    def get_historical_temp(self, latitude: Any, longitude: Any, start_date: Any, end_date: Any) -> tuple[bool, Any]:
        return self._archive(latitude, longitude, start_date, end_date, TEMPERATURE, True)

    def get_historical_rain(self, latitude: Any, longitude: Any, start_date: Any, end_date: Any) -> tuple[bool, Any]:
        return self._archive(latitude, longitude, start_date, end_date, RAIN, True)

    def get_historical_snow(self, latitude: Any, longitude: Any, start_date: Any, end_date: Any) -> tuple[bool, Any]:
        return self._archive(latitude, longitude, start_date, end_date, SNOW, True)

    def _forecast(
        self, latitude: Any, longitude: Any, start: Any, end: Any, variables: Mapping[str, str]
    ) -> tuple[bool, Any]:
        error = self._dates_error(start, end, historical=False)
        if error is not None:
            return False, error
        if not _within_30_days(start, end):
            return False, SPAN_ERROR
        return self._archive(latitude, longitude, start, end, variables, False)

    def get_snow_forecast(self, latitude: Any, longitude: Any, start_date: Any, end_date: Any) -> tuple[bool, Any]:
        return self._forecast(latitude, longitude, start_date, end_date, SNOW)

    def get_temp_forecast(self, latitude: Any, longitude: Any, start_date: Any, end_date: Any) -> tuple[bool, Any]:
        return self._forecast(latitude, longitude, start_date, end_date, TEMPERATURE)

    def get_rain_forecast(self, latitude: Any, longitude: Any, start_date: Any, end_date: Any) -> tuple[bool, Any]:
        return self._forecast(latitude, longitude, start_date, end_date, RAIN)

    def get_current_snow(self, latitude: Any, longitude: Any, current_date: Any) -> tuple[bool, Any]:
        return self._archive(latitude, longitude, current_date, current_date, SNOW, False)

    def get_current_temp(self, latitude: Any, longitude: Any, current_date: Any) -> tuple[bool, Any]:
        return self._archive(latitude, longitude, current_date, current_date, TEMPERATURE, False)

    def get_current_rain(self, latitude: Any, longitude: Any, current_date: Any) -> tuple[bool, Any]:
        return self._archive(latitude, longitude, current_date, current_date, RAIN, False)

    # ------------------------------------------------------------ air quality
    def _air(self, latitude: Any, longitude: Any, start: Any, end: Any, historical: bool) -> tuple[bool, Any]:
        ok, response = self._archive(latitude, longitude, start, end, AQI, historical)
        if not ok:
            return ok, response
        response["daily"]["time"] = [f"{d}T12:00" for d in response["daily"]["time"]]
        return True, response

    def get_historical_air_quality_index(
        self, latitude: Any, longitude: Any, start_date: Any, end_date: Any
    ) -> tuple[bool, Any]:
        return self._air(latitude, longitude, start_date, end_date, True)

    def get_current_air_quality_index(self, latitude: Any, longitude: Any, current_date: Any) -> tuple[bool, Any]:
        return self._air(latitude, longitude, current_date, current_date, False)

    def get_air_quality_level(self, air_quality_index: Any) -> tuple[bool, Any]:
        return True, air_quality_level(air_quality_index)

    # ------------------------------------------------------------ places
    def get_latitude_longitude(self, name: Any) -> tuple[bool, Any]:
        hits = self.world.geocode(str(name))
        if not hits:  # the service answers without "results"; the original's cleaning fails on it
            raise KeyError("results")
        return True, {"results": [c.geocoded() for c in hits]}

    def get_elevation(self, latitude: Any, longitude: Any) -> tuple[bool, Any]:
        lat = _coordinate(latitude, "latitude")
        if isinstance(lat, str):
            return False, lat
        lon = _coordinate(longitude, "longitude")
        if isinstance(lon, str):
            return False, lon
        return True, {"elevation": [self.world.elevation(lat, lon)]}

    def get_distance(self, latitude1: Any, longitude1: Any, latitude2: Any, longitude2: Any) -> tuple[bool, Any]:
        return True, geodesic((latitude1, longitude1), (latitude2, longitude2)).km

    def convert_zipcode_to_address(self, zipcode: Any) -> tuple[bool, Any]:
        raise KeyError("zipcode")  # the original's URL table has no "zipcode" entry


def today(current_date: str) -> date:
    return _day(current_date).date()
