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
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

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
