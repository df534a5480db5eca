"""Running an agent's SQL on a real SQLite database so that it can only read.

Four locks, each enough for its own threat: the file is opened read-only (`file:...?mode=ro`),
`PRAGMA query_only` is on, an authorizer refuses every action but reading (no write, DDL,
ATTACH, transaction, writing pragma or `load_extension`), and the connection's limits allow no
attached database and no huge string or blob. A progress handler stops a statement at its time
limit (a runaway join, a recursive CTE), and at most `row_cap` rows are fetched. A fresh
connection per statement keeps nothing between steps, so a session costs no open file, and
SQLite releases the GIL while it works, so one slow statement holds up no other session.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Pragmas that only read the schema: agents may look at a table's columns and keys.
READ_PRAGMAS = frozenset({"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"})
#: Authorizer actions a read needs.
_READ_ACTIONS = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)
#: SQL functions refused although reads call functions: loading code from a file.
_REFUSED_FUNCTIONS = frozenset({"load_extension"})
#: Authorizer action names (SQLite's constants without the prefix), for the refusal text.
_ACTIONS = (
    "CREATE_INDEX CREATE_TABLE CREATE_TEMP_INDEX CREATE_TEMP_TABLE CREATE_TEMP_TRIGGER CREATE_TEMP_VIEW"
    " CREATE_TRIGGER CREATE_VIEW DELETE DROP_INDEX DROP_TABLE DROP_TEMP_INDEX DROP_TEMP_TABLE"
    " DROP_TEMP_TRIGGER DROP_TEMP_VIEW DROP_TRIGGER DROP_VIEW INSERT PRAGMA TRANSACTION UPDATE ATTACH"
    " DETACH ALTER_TABLE REINDEX ANALYZE CREATE_VTABLE DROP_VTABLE SAVEPOINT"
).split()
_ACTION_NAMES = {getattr(sqlite3, f"SQLITE_{name}"): name.replace("_", " ") for name in _ACTIONS}
#: Longest string or blob a statement may build (randomblob(1e9) would take a gigabyte).
MAX_VALUE_BYTES = 4_000_000
#: Progress-handler period in SQLite virtual-machine instructions (checks the clock ~every 50 µs).
_PROGRESS_EVERY = 2_000

REFUSED_PREFIX = "Refused: "
SINGLE_STATEMENT = "only one read-only SELECT statement runs here"


class Refused(Exception):
    """The statement is not one read-only statement; its text says why, for the agent."""


@dataclass
class QueryResult:
    """One statement's outcome: its rows, or the error text SQLite (or the sandbox) gave."""

    rows: list[tuple[Any, ...]] = field(default_factory=list)
    error: str | None = None
    #: True when the statement returned more than `row_cap` rows (only the first are kept).
    truncated: bool = False
    #: True when the statement ran past its time limit and was stopped.
    timed_out: bool = False
    #: True when the sandbox refused the statement before or while it ran (a write, ATTACH, ...).
    refused: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


def readonly_uri(path: Path) -> str:
    """SQLite's read-only URI for a database file (`?mode=ro`, as SQLGym opens BIRD's files)."""
    return f"{path.resolve().as_uri()}?mode=ro"


class _Guard:
    """The authorizer: allows reads and the schema pragmas, records the first refusal."""

    def __init__(self) -> None:
        self.refusal: str | None = None

    def __call__(self, action: int, arg1: str | None, arg2: str | None, db: str | None, trigger: str | None) -> int:
        if action in _READ_ACTIONS:
            if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in _REFUSED_FUNCTIONS:
                return self._deny(f"the function {arg2}() is not allowed")
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() in READ_PRAGMAS:
            return sqlite3.SQLITE_OK
        what = _ACTION_NAMES.get(action, f"authorizer action {action}")
        return self._deny(f"{what}{f' {arg1}' if arg1 else ''} is not a read")

    def _deny(self, reason: str) -> int:
        if self.refusal is None:
            self.refusal = reason
        return sqlite3.SQLITE_DENY


def _connect(path: Path, deadline: float) -> tuple[sqlite3.Connection, _Guard]:
    conn = sqlite3.connect(readonly_uri(path), uri=True, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA query_only = ON")
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    conn.text_factory = lambda b: b.decode("utf-8", errors="replace")  # BIRD's files hold some invalid UTF-8
    guard = _Guard()
    conn.set_authorizer(guard)
    conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, _PROGRESS_EVERY)
    return conn, guard


def run_readonly(path: Path, sql: str, *, time_limit: float, row_cap: int) -> QueryResult:
    """Run one statement read-only with a time limit, keeping at most `row_cap` rows."""
    if not sql.strip().strip(";").strip():
        return QueryResult(error=f"{REFUSED_PREFIX}the SQL is empty; {SINGLE_STATEMENT}.", refused=True)
    deadline = time.monotonic() + time_limit
    conn, guard = _connect(path, deadline)
    try:
        cursor = conn.execute(sql)
        if cursor.description is None:  # nothing ran that returns rows (a comment, REINDEX)
            return QueryResult(error=f"{REFUSED_PREFIX}the SQL returns no rows; {SINGLE_STATEMENT}.", refused=True)
        rows = cursor.fetchmany(row_cap + 1)
        return QueryResult(rows=rows[:row_cap], truncated=len(rows) > row_cap)
    except sqlite3.ProgrammingError as exc:
        if "one statement at a time" in str(exc):
            return QueryResult(error=f"{REFUSED_PREFIX}more than one statement; {SINGLE_STATEMENT}.", refused=True)
        return QueryResult(error=str(exc))
    except sqlite3.Error as exc:
        if guard.refusal is not None:
            return QueryResult(error=f"{REFUSED_PREFIX}{guard.refusal}; {SINGLE_STATEMENT}.", refused=True)
        if time.monotonic() > deadline and "interrupted" in str(exc):
            return QueryResult(error=f"Stopped: the query ran past its time limit of {time_limit:g} s.", timed_out=True)
        return QueryResult(error=str(exc))
    except (OverflowError, ValueError, MemoryError) as exc:  # a value Python cannot hold
        return QueryResult(error=f"{type(exc).__name__}: {exc}")
    finally:
        conn.close()
