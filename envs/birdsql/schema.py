"""A database's schema as BIRD's `*_tables.json` records it, and the two ways agents are shown it.

BIRD (like Spider) describes each database in a tables file: `table_names` and `column_names`
(lower-case words, `[table index, name]`, index -1 for the `*` column), their `_original`
spellings, `column_types`, `primary_keys` (column indices) and `foreign_keys` (index pairs).
Where a user's BIRD copy lacks the file, and for the generated databases, the record is read
off the SQLite file itself. SQLGym shows an agent the record as one paragraph of English
(`describe`: its format, the facts only); the native prompt shows the `CREATE TABLE`
statements the file stores, as BIRD's own prompts do.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

from coevo.envs.birdsql.sandbox import readonly_uri


def _words(name: str) -> str:
    """Spider's normalized name: `customer_id` -> `customer id`, camelCase split, lower case."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ")
    return " ".join(spaced.lower().split())


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def tables_record(db_id: str, path: Path) -> dict[str, Any]:
    """BIRD's tables-file record of a SQLite database, read off the file."""
    conn = sqlite3.connect(readonly_uri(path), uri=True)
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
            )
        ]
        columns: list[list[Any]] = [[-1, "*"]]
        types: list[str] = ["text"]
        primary: list[int] = []
        index_of: dict[tuple[str, str], int] = {}
        for t, table in enumerate(tables):
            for _cid, name, ctype, _notnull, _default, pk in conn.execute(f"PRAGMA table_info({_quote(table)})"):
                index_of[(table.lower(), name.lower())] = len(columns)
                if pk:
                    primary.append(len(columns))
                columns.append([t, name])
                types.append(_column_type(ctype))
        foreign: list[list[int]] = []
        for table in tables:
            for row in conn.execute(f"PRAGMA foreign_key_list({_quote(table)})"):
                other, src, dst = row[2], row[3], row[4]
                a, b = index_of.get((table.lower(), src.lower())), index_of.get((other.lower(), (dst or "").lower()))
                if a is not None and b is not None:
                    foreign.append([a, b])
    finally:
        conn.close()
    return {
        "db_id": db_id,
        "table_names_original": tables,
        "table_names": [_words(t) for t in tables],
        "column_names_original": columns,
        "column_names": [[t, name if t < 0 else _words(name)] for t, name in columns],
        "column_types": types,
        "primary_keys": primary,
        "foreign_keys": foreign,
    }


def _column_type(declared: str) -> str:
    """Spider's coarse column type: number, text, time, others."""
    d = (declared or "").lower()
    if any(k in d for k in ("int", "real", "floa", "doub", "num", "dec")):
        return "number"
    if any(k in d for k in ("date", "time")):
        return "time"
    return "text" if any(k in d for k in ("char", "text", "clob")) or not d else "others"


def describe(record: dict[str, Any]) -> str:
    """The schema as SQLGym's BIRD dataset writes it into the observation: an overview, each
    table's columns and primary key, then the foreign keys, names lower-cased.

    SQLGym reads a foreign key's column names from a list that skips the `*` column and repeats
    once per table, so it names the column after the key's (the first column for a table's last
    one wraps to the next copy); models trained on SQLGym saw that text, so it is kept.
    """
    tables = [t.lower() for t in record["table_names"]]
    columns = record["column_names"]
    primary = record["primary_keys"]  # a list: composite keys may appear as nested lists
    parts = [f"{record['db_id']} contains tables such as {', '.join(tables)}."]
    for t, table in enumerate(tables):
        own = [name.lower() for i, (ti, name) in enumerate(columns) if i and ti == t]
        keys = [name.lower() for i, (ti, name) in enumerate(columns) if i and ti == t and i in primary]
        parts.append(f"Table {table} has columns such as {', '.join(own)}.")
        parts.append(f"{', '.join(keys)} is the primary key.")
    shifted = [name.lower() for _, name in columns[1:]] * len(tables)
    for a, b in record["foreign_keys"]:
        parts.append(
            f"The {shifted[a]} of {tables[columns[a][0]]} is the foreign key of {shifted[b]} of {tables[columns[b][0]]}."
        )
    return " ".join(parts)


def create_statements(path: Path) -> str:
    """The `CREATE TABLE` statements the database file stores, one after another."""
    conn = sqlite3.connect(readonly_uri(path), uri=True)
    try:
        rows = conn.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql IS NOT NULL"
            " ORDER BY rowid"
        ).fetchall()
    finally:
        conn.close()
    return "\n\n".join(r[0].strip() for r in rows)
