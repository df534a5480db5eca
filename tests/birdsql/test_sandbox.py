"""The sandbox: an agent's SQL can only read one statement's worth, within its time and rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from coevo.envs.birdsql.sandbox import REFUSED_PREFIX, run_readonly


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "t.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(i, f"v{i}") for i in range(200)])
    conn.commit()
    conn.close()
    return path


def _rows(db: Path) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT * FROM t ORDER BY a").fetchall()
    finally:
        conn.close()


def test_a_select_reads_rows(db: Path) -> None:
    r = run_readonly(db, "SELECT b FROM t WHERE a < 3 ORDER BY a", time_limit=5, row_cap=100)
    assert r.ok and r.rows == [("v0",), ("v1",), ("v2",)] and not r.truncated


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO t VALUES (1000, 'x')",
        "UPDATE t SET b = 'x'",
        "DELETE FROM t",
        "REPLACE INTO t VALUES (1, 'x')",
        "DROP TABLE t",
        "CREATE TABLE u (a)",
        "CREATE TEMP TABLE u (a)",
        "CREATE INDEX i ON t (b)",
        "ALTER TABLE t ADD COLUMN c",
        "BEGIN",
        "SAVEPOINT s",
        "ANALYZE",
        "VACUUM",
        "PRAGMA query_only = 0",
        "PRAGMA journal_mode = DELETE",
        "PRAGMA writable_schema = 1",
        "WITH x AS (SELECT 1) INSERT INTO t SELECT 2000, 'y' FROM x",
    ],
)
def test_no_statement_writes_and_each_is_refused_in_words(db: Path, sql: str) -> None:
    before = _rows(db)
    r = run_readonly(db, sql, time_limit=5, row_cap=100)
    assert r.refused and r.error is not None and r.error.startswith(REFUSED_PREFIX)
    assert "read-only" in r.error
    assert _rows(db) == before


@pytest.mark.parametrize(
    "sql",
    [
        "ATTACH DATABASE ':memory:' AS other",
        "ATTACH DATABASE '{other}' AS other",
        "VACUUM INTO '{copy}'",
    ],
)
def test_no_other_file_is_attached_or_written(db: Path, tmp_path: Path, sql: str) -> None:
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).close()
    copy = tmp_path / "copy.sqlite"
    r = run_readonly(db, sql.format(other=other, copy=copy), time_limit=5, row_cap=100)
    assert r.refused and "ATTACH" in str(r.error)
    assert not copy.exists()


def test_no_extension_is_loaded(db: Path, tmp_path: Path) -> None:
    r = run_readonly(db, f"SELECT load_extension('{tmp_path / 'evil.so'}')", time_limit=5, row_cap=100)
    assert r.refused and "load_extension" in str(r.error)


@pytest.mark.parametrize(
    "sql",
    [
        "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT COUNT(*) FROM r",
        "SELECT COUNT(*) FROM t AS a, t AS b, t AS c, t AS d, t AS e",
    ],
)
def test_a_runaway_query_is_stopped_at_its_time_limit(db: Path, sql: str) -> None:
    r = run_readonly(db, sql, time_limit=0.2, row_cap=100)
    assert r.timed_out and not r.rows
    assert "time limit of 0.2 s" in str(r.error)


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("SELECT 1; SELECT 2", "more than one statement"),
        ("SELECT 1; DELETE FROM t", "more than one statement"),
        ("", "empty"),
        ("  ;  ", "empty"),
        ("-- only a comment", "returns no rows"),
        ("REINDEX", "returns no rows"),
    ],
)
def test_only_a_single_statement_that_returns_rows_runs(db: Path, sql: str, why: str) -> None:
    r = run_readonly(db, sql, time_limit=5, row_cap=100)
    assert r.refused and not r.rows and why in str(r.error)
    assert len(_rows(db)) == 200


def test_rows_past_the_cap_are_cut_and_flagged(db: Path) -> None:
    r = run_readonly(db, "SELECT a FROM t ORDER BY a", time_limit=5, row_cap=50)
    assert r.truncated and r.rows == [(i,) for i in range(50)]


def test_a_huge_value_is_refused_by_the_length_limit(db: Path) -> None:
    r = run_readonly(db, "SELECT randomblob(1000000000)", time_limit=5, row_cap=10)
    assert not r.ok and "too big" in str(r.error)


def test_schema_pragmas_and_the_catalogue_read(db: Path) -> None:
    r = run_readonly(db, "PRAGMA table_info(t)", time_limit=5, row_cap=10)
    assert r.ok and [row[1] for row in r.rows] == ["a", "b"]
    r = run_readonly(db, "SELECT name FROM sqlite_master", time_limit=5, row_cap=10)
    assert r.ok and r.rows == [("t",)]


def test_a_query_near_the_action_limit_runs(db: Path) -> None:
    values = ", ".join(str(i) for i in range(10_800))  # just under 64 KiB of SQL
    sql = f"SELECT COUNT(*) FROM t WHERE a IN ({values})"
    assert 60_000 < len(sql) < 64 * 1024
    r = run_readonly(db, sql, time_limit=5, row_cap=10)
    assert r.ok and r.rows == [(200,)]
