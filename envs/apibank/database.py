"""The sandbox's databases: read-only tables shared by every session, plus a copy-on-write view.

A server holds thousands of sessions, each needing its own database state (sessions never see
each other's writes). Copying the ~3 MB of initial tables per session would not scale, so a
session reads the shared tables directly and copies a table (shallowly) only the first time it
writes to it. API code follows one rule that makes the shallow copy enough: it never mutates a
value it read; it stores a new value under the key instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: Tables the APIs read; `load_tables` fails clearly if a data folder lacks one.
TABLE_NAMES: tuple[str, ...] = (
    "Account",
    "Agenda",
    "Alarm",
    "Appointments",
    "Bank",
    "HealthData",
    "History",
    "Hotel",
    "ImageCaptioning",
    "Meeting",
    "QuestionAnswering",
    "Reminder",
    "Scenes",
    "SearchEngine",
    "SpeechRecognition",
    "Stock",
    "Symptom",
    "TimeSwitch",
    "Wiki",
)


def load_tables(folder: Path) -> dict[str, Any]:
    """The initial databases of an API-Bank data folder (`init_database/*.json`)."""
    tables: dict[str, Any] = {}
    missing = [name for name in TABLE_NAMES if not (folder / f"{name}.json").is_file()]
    if missing:
        raise FileNotFoundError(f"{folder} lacks initial databases: {', '.join(missing)}")
    for name in TABLE_NAMES:
        with open(folder / f"{name}.json", encoding="utf-8") as fh:
            tables[name] = json.load(fh)
    return tables


class SessionTables:
    """One session's view of the databases: shared reads, private copy-on-first-write tables."""

    __slots__ = ("_base", "_own")

    def __init__(self, base: Mapping[str, Any], initial: Mapping[str, Any] | None = None) -> None:
        self._base = base
        self._own: dict[str, Any] = {}
        for name, value in (initial or {}).items():
            self._own[name] = _shallow_copy(value)

    def read(self, name: str) -> Any:
        """The table as this session sees it. Callers must not mutate what they get."""
        own = self._own.get(name)
        return own if own is not None else self._base[name]

    def write(self, name: str) -> Any:
        """The session's private copy of a table, made on first use; safe to assign into."""
        own = self._own.get(name)
        if own is None:
            own = self._own[name] = _shallow_copy(self._base[name])
        return own

    @property
    def written(self) -> tuple[str, ...]:
        """Names of the tables this session has copied (what its memory holds)."""
        return tuple(self._own)


def _shallow_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    raise TypeError(f"a table must be a dict or a list, not {type(value).__name__}")
