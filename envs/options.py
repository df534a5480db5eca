"""Parsing env options that arrive as strings from the command line (`--option key=value`)."""

from __future__ import annotations

from typing import Any

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


def flag(value: Any) -> bool:
    """A boolean option: a bool, or one of true/false, yes/no, on/off, 1/0 in any case."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"expected true or false, got {value!r}")
