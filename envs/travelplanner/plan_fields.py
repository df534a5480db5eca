"""How the official evaluator reads the fields of a plan day.

Plan fields are free strings ("Flight Number: F0123456, from A to B, Departure Time: ...",
"Name, City", "from A to B"); the official scripts take them apart with a handful of regular
expressions. These are the same patterns, so a field parses here exactly as it does there.
"""

from __future__ import annotations

import re

_FROM_TO = re.compile(r"from\s+(.+?)\s+to\s+([^,]+)(?=[,\s]|$)")
_BEFORE_PARENTHESIS = re.compile(r"^(.*?)\([^)]*\)")
_NAME_CITY = re.compile(r"(.*?),\s*([^,]+)(\(\w[\w\s]*\))?$")


def extract_from_to(text: str) -> tuple[str | None, str | None]:
    """("A", "B") from "... from A to B, ..." (B ends at a comma or the end), else (None, None)."""
    match = _FROM_TO.search(text)
    return (match.group(1), match.group(2)) if match else (None, None)


def extract_before_parenthesis(text: str) -> str:
    """"Austin(Texas)" -> "Austin"; text without a parenthesised part is returned unchanged."""
    match = _BEFORE_PARENTHESIS.search(text)
    return match.group(1) if match else text


def name_and_city(text: str) -> tuple[str, str]:
    """"Name, City" -> ("Name", "City") split at the last comma; ("-", "-") when there is none."""
    match = _NAME_CITY.search(text)
    if not match:
        return "-", "-"
    return match.group(1).strip(), extract_before_parenthesis(match.group(2).strip()).strip()


def transportation_kind(text: str) -> str | None:
    """"Taxi", "Self-driving" or "Flight" by keyword, checked in that order."""
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
