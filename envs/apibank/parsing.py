"""API-Request parsing with API-Bank's own rules (regexes; nothing is evaluated).

`get_api_call` finds `[ApiName(...)]` in model output; `parse_api_call` reads its name and
arguments with the benchmark's argument pattern: quoted values (up to the next quote of either
kind — so `content='Don't'` reads as 'Don', as in the recorded dialogues), bracketed lists, or
bare words. Values stay strings; the sandbox converts them to the documented types.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

CALL = re.compile(r"\[(\w+)\((.*)\)\]")
ARGUMENT = re.compile(r"(\w+)\s*=\s*['\"](.+?)['\"]|(\w+)\s*=\s*(\[.*\])|(\w+)\s*=\s*(\w+)")
PREFIX = "API-Request:"


@dataclass(frozen=True)
class ApiCall:
    name: str
    arguments: dict[str, str]
    #: The `[Name(...)]` text as written, for the dialogue history.
    text: str


def get_api_call(text: str) -> str | None:
    """The first `[Name(...)]` in `text` (greedy up to the last ')]'), or None."""
    match = CALL.search(text)
    return match.group(0) if match else None


def parse_api_call(text: str) -> ApiCall | None:
    """Name and string arguments of the API call in `text`, or None when it has none."""
    match = CALL.search(text)
    if match is None:
        return None
    arguments: dict[str, str] = {}
    for m in ARGUMENT.finditer(match.group(2)):
        if m.group(1):
            arguments[m.group(1)] = m.group(2)
        elif m.group(3):
            arguments[m.group(3)] = m.group(4)
        elif m.group(5):
            arguments[m.group(5)] = m.group(6)
    return ApiCall(match.group(1), arguments, match.group(0))


def format_api_call(name: str, arguments: Mapping[str, Any]) -> str:
    """`[Name(key='value', ...)]`, the way API-Bank prints a recorded call into a prompt."""
    rendered = ", ".join(f"{k}='{v}'" for k, v in arguments.items())
    return f"[{name}({rendered})]"


def is_api_request(action: str) -> bool:
    """Whether an agent action is an API request rather than a reply to the user."""
    return action.lstrip().startswith(PREFIX) or get_api_call(action) is not None


def request_text(name: str, arguments: Mapping[str, Any]) -> str:
    """An `API-Request:` line that `parse_api_call` reads back as exactly `arguments`.

    List literals go unquoted (the argument pattern reads `key=[...]`); other values are quoted.
    A value holding a quote cannot be written at all under API-Bank's pattern (it stops at the
    first quote), so generated dialogues never use one.
    """
    parts = []
    for key, value in arguments.items():
        text = str(value)
        if text.startswith("[") and text.endswith("]"):
            parts.append(f"{key}={text}")
        else:
            parts.append(f"{key}='{text}'")
    return f"{PREFIX} [{name}({', '.join(parts)})]"
