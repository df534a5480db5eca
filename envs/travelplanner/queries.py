"""Queries: the official fields, and loading the official query files a user points at.

A query has the fields of the official dataset (osunlp/TravelPlanner): org, dest, days,
visiting_city_number, date, people_number, local_constraint {house rule, cuisine, room type,
transportation}, budget, query (the text), level, and for the train split the
reference_information the sole-planning mode shows. The official CSV files store `date` and
`local_constraint` as Python literals; they are read with `ast.literal_eval`, never `eval`.
"""

from __future__ import annotations

import ast
import csv
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LEVELS = ("easy", "medium", "hard")
DAY_OPTIONS = (3, 5, 7)
LOCAL_CONSTRAINT_KEYS = ("house rule", "cuisine", "room type", "transportation")
SPLIT_NAMES = ("train", "validation", "test")
#: Split sizes of the official benchmark.
OFFICIAL_SPLIT_SIZES = {"train": 45, "validation": 180, "test": 1000}


class QueryFormatError(ValueError):
    """A query record is missing fields or holds values of the wrong shape."""


@dataclass(frozen=True)
class Query:
    org: str
    dest: str
    days: int
    visiting_city_number: int
    date: tuple[str, ...]
    people_number: int
    local_constraint: Mapping[str, Any]
    budget: int
    query: str
    level: str
    reference_information: str | None = field(default=None, compare=False)

    def constraint(self, key: str) -> Any:
        return self.local_constraint.get(key)

    def public_dict(self) -> dict[str, Any]:
        """The official record without reference information (what `info` and files carry)."""
        return {
            "org": self.org,
            "dest": self.dest,
            "days": self.days,
            "visiting_city_number": self.visiting_city_number,
            "date": list(self.date),
            "people_number": self.people_number,
            "local_constraint": {
                k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in self.local_constraint.items()
            },
            "budget": self.budget,
            "query": self.query,
            "level": self.level,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Query:
        """A query from an official record (JSON values or the CSV's Python-literal strings)."""
        try:
            dates = _literal(record["date"])
            constraint = _literal(record.get("local_constraint") or {})
            if not isinstance(dates, (list, tuple)) or not isinstance(constraint, Mapping):
                raise QueryFormatError("date must be a list and local_constraint a mapping")
            cuisine = constraint.get("cuisine")
            return cls(
                org=str(record["org"]),
                dest=str(record["dest"]),
                days=int(record["days"]),
                visiting_city_number=int(record["visiting_city_number"]),
                date=tuple(str(d) for d in dates),
                people_number=int(record["people_number"]),
                local_constraint={
                    "house rule": constraint.get("house rule"),
                    "cuisine": list(cuisine) if cuisine else None,
                    "room type": constraint.get("room type"),
                    "transportation": constraint.get("transportation"),
                },
                budget=int(float(record["budget"])),
                query=str(record.get("query") or ""),
                level=str(record["level"]),
                reference_information=record.get("reference_information") or None,
            )
        except KeyError as exc:
            raise QueryFormatError(f"query record lacks field {exc.args[0]!r}") from None
        except (TypeError, ValueError, SyntaxError) as exc:
            raise QueryFormatError(f"bad query record: {exc}") from None


def _literal(value: Any) -> Any:
    if isinstance(value, str):
        return ast.literal_eval(value)
    return value


def read_records(path: Path) -> list[dict[str, Any]]:
    """Records of a .csv, .jsonl or .json file (a list, or {"data"|"queries": [...]})."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # reference_information cells are large
        with path.open(newline="", encoding="utf-8") as handle:
            return [dict(row) for row in csv.DictReader(handle)]
    if suffix == ".jsonl":
        lines = path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]
    if suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, Mapping):
            data = data.get("data") or data.get("queries") or []
        if not isinstance(data, list):
            raise QueryFormatError(f"{path}: expected a list of query records")
        return data
    raise QueryFormatError(f"{path}: unsupported query file type {suffix!r} (use .csv, .jsonl or .json)")


def load_query_file(path: str | Path) -> list[Query]:
    path = Path(path)
    return [Query.from_record(record) for record in read_records(path)]


def load_query_splits(location: str | Path) -> dict[str, list[Query]]:
    """Splits from a folder of files named after them (train.csv, validation.jsonl, ...), or one
    file whose stem names the split."""
    location = Path(location)
    if location.is_file():
        return {location.stem: load_query_file(location)}
    if not location.is_dir():
        raise FileNotFoundError(f"TravelPlanner query file or folder not found: {location}")
    splits: dict[str, list[Query]] = {}
    for path in sorted(location.iterdir()):
        if path.suffix.lower() in (".csv", ".jsonl", ".json") and path.stem not in splits:
            splits[path.stem] = load_query_file(path)
    if not splits:
        raise FileNotFoundError(f"no .csv/.jsonl/.json query files in {location}")
    return splits
