"""Plans in and out: the JSON list of day records, and the official text form.

The evaluator reads a plan as a list of day records with the keys days, current_city,
transportation, breakfast, attraction, lunch, dinner, accommodation. Agents may submit:
- that list as JSON (optionally inside ```json fences, or as {"plan": [...]}), or as the Python
  literal the official annotated plans use (read with `ast.literal_eval`); values are kept
  as given, so the official rules apply to them unchanged;
- the text form the official planner prompt asks for ("Day 1:", "Current City: ...",
  "Transportation: ...", ...). It is converted the way the official post-processing
  instructs its converter: every field present ('-' when absent), '$' signs removed,
  attractions as 'Name, City' items each ended by ';'.

How the official evaluator reads the fields of a plan day.

Plan fields are free strings ("Flight Number: F0123456, from A to B, Departure Time: ...",
"Name, City", "from A to B"); the official scripts take them apart with a handful of regular
expressions. These are the same patterns, so a field parses here exactly as it does there.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any


_FROM_TO = re.compile(r"from\s+(.+?)\s+to\s+([^,]+)(?=[,\s]|$)")
_BEFORE_PARENTHESIS = re.compile(r"^(.*?)\([^)]*\)")
_NAME_CITY = re.compile(r"(.*?),\s*([^,]+)(\(\w[\w\s]*\))?$")


def extract_from_to(text: str) -> tuple[str | None, str | None]:
    """("A", "B") from "... from A to B, ..." (B ends at a comma or the end), else (None, None)."""
    match = _FROM_TO.search(text)
    return (match.group(1), match.group(2)) if match else (None, None)


def extract_before_parenthesis(text: str) -> str:
    """ "Austin(Texas)" -> "Austin"; text without a parenthesised part is returned unchanged."""
    match = _BEFORE_PARENTHESIS.search(text)
    return match.group(1) if match else text


def name_and_city(text: str) -> tuple[str, str]:
    """ "Name, City" -> ("Name", "City") split at the last comma; ("-", "-") when there is none."""
    match = _NAME_CITY.search(text)
    if not match:
        return "-", "-"
    return match.group(1).strip(), extract_before_parenthesis(match.group(2).strip()).strip()


def transportation_kind(text: str) -> str | None:
    """ "Taxi", "Self-driving" or "Flight" by keyword, checked in that order."""
    lowered = text.lower()
    if "taxi" in lowered:
        return "Taxi"
    if "self-driving" in lowered:
        return "Self-driving"
    if "flight" in lowered:
        return "Flight"
    return None


def flight_number(text: str) -> str:
    """The number after "Flight Number: " (IndexError when the marker is absent, as officially)."""
    return text.split("Flight Number: ")[1].split(",")[0]


def filled(value: object) -> bool:
    """A field counts as given when it is truthy and not the placeholder '-'."""
    return bool(value) and value != "-"


def attraction_items(value: str) -> list[str]:
    """Attractions of a day: the ';'-separated items except the last one.

    The official checks take `split(';')[:-1]`, which expects every item to end with ';'
    ("A, City;B, City;"); an item after the last ';' is not checked at all.
    """
    return value.split(";")[:-1]


FIELDS = ("days", "current_city", "transportation", "breakfast", "attraction", "lunch", "dinner", "accommodation")

_LABELS = {
    "current city": "current_city",
    "current_city": "current_city",
    "transportation": "transportation",
    "breakfast": "breakfast",
    "attraction": "attraction",
    "attractions": "attraction",
    "lunch": "lunch",
    "dinner": "dinner",
    "accommodation": "accommodation",
}
_DAY_HEADER = re.compile(r"^\s*\**\s*Day\s+(\d+)\s*\**\s*:?\s*\**\s*$", re.IGNORECASE)
_FIELD_LINE = re.compile(r"^\s*[-*]?\s*\**\s*([A-Za-z_ ]+?)\s*\**\s*:\s*(.*)$")
_FENCE = re.compile(r"```(?:json|python)?\s*(.*?)```", re.DOTALL)


class PlanFormatError(ValueError):
    """The submission is neither a list of day records nor the text form."""


def parse_plan(text: str) -> list[dict[str, Any]]:
    """The day records of a submitted plan (see the module docstring for accepted forms)."""
    body = text.strip()
    fenced = _FENCE.search(body)
    if fenced:
        body = fenced.group(1).strip()
    if body[:1] in ("[", "{"):
        return _records(_load_structured(body))
    return _parse_text(body)


def _load_structured(body: str) -> Any:
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(body)
    except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
        raise PlanFormatError(f"the plan is neither valid JSON nor a Python literal: {exc}") from None


def _records(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, Mapping):
        if "plan" not in data:
            raise PlanFormatError('a plan object needs a "plan" key holding the list of days')
        data = data["plan"]
    if not isinstance(data, Sequence) or isinstance(data, (str, bytes)):
        raise PlanFormatError("a plan must be a list of day records")
    days: list[dict[str, Any]] = []
    for index, day in enumerate(data):
        if not isinstance(day, Mapping):
            raise PlanFormatError(f"day record {index + 1} is not an object")
        days.append(dict(day))
    return days


def _clean(value: str) -> str:
    value = value.replace("$", "").strip()
    return value or "-"


def _attractions(value: str) -> str:
    items = [item.strip().rstrip(".").strip() for item in value.split(";")]
    items = [item for item in items if item and item != "-"]
    return "".join(f"{item};" for item in items) if items else "-"


def _parse_text(body: str) -> list[dict[str, Any]]:
    days: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for line in body.splitlines():
        header = _DAY_HEADER.match(line)
        if header:
            current = {"days": int(header.group(1))}
            days.append(current)
            continue
        field_line = _FIELD_LINE.match(line)
        if current is None or not field_line:
            continue
        key = _LABELS.get(field_line.group(1).strip().lower())
        if key is None:
            continue
        value = _clean(field_line.group(2))
        current[key] = _attractions(value) if key == "attraction" else value
    if not days:
        raise PlanFormatError("no plan found: expected a JSON list of days or 'Day 1:' blocks")
    for day in days:
        for key in FIELDS[1:]:
            day.setdefault(key, "-")
    return days


def render_text(plan: Sequence[Mapping[str, Any]]) -> str:
    """The official text form of a plan (the inverse of the text parser for clean plans)."""
    blocks = []
    for index, day in enumerate(plan):
        if not day:
            continue
        blocks.append(
            "\n".join(
                [
                    f"Day {day.get('days', index + 1)}:",
                    f"Current City: {day.get('current_city', '-')}",
                    f"Transportation: {day.get('transportation', '-')}",
                    f"Breakfast: {day.get('breakfast', '-')}",
                    f"Attraction: {day.get('attraction', '-')}",
                    f"Lunch: {day.get('lunch', '-')}",
                    f"Dinner: {day.get('dinner', '-')}",
                    f"Accommodation: {day.get('accommodation', '-')}",
                ]
            )
        )
    return "\n\n".join(blocks)
