"""The task source: BIRD's question files and databases, or the generated set in their layout.

A BIRD split is `<split>.json` (items with `db_id`, `question`, `evidence`, `SQL`, and in dev
`question_id` and `difficulty`), `<split>_tables.json` (the schema records) and
`<split>_databases/<db_id>/<db_id>.sqlite`. `data_dir` may hold the split's files directly
(BIRD's unpacked dev.zip) or one folder per split (`train/`, `dev/`: SQLGym's `bird_path`).
Task ids are `<split>-<position>`, so index i of a split is its i-th question, as SQLGym counts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coevo.envs.birdsql.schema import create_statements, describe, tables_record

#: BIRD's splits in AgentGym's index order (SQLGym: train items first, then dev).
SPLITS = ("train", "dev")


@dataclass(frozen=True)
class Task:
    task_id: str
    split: str
    db_id: str
    question: str
    evidence: str
    sql: str
    difficulty: str
    kind: str


@dataclass(frozen=True)
class Database:
    """One database file and the two renderings of its schema agents are shown."""

    db_id: str
    path: Path
    description: str  # SQLGym's paragraph
    create_sql: str  # the CREATE TABLE statements


class MissingData(FileNotFoundError):
    """A data directory without BIRD's files, or a question naming a database that is absent."""


def _split_dir(data_dir: Path, split: str) -> Path | None:
    for base in (data_dir / split, data_dir):
        if (base / f"{split}.json").is_file():
            return base
    return None


def load_split(data_dir: Path, split: str) -> tuple[list[Task], dict[str, Database]]:
    """One split's tasks and databases; ([], {}) when the directory has no such split."""
    base = _split_dir(data_dir, split)
    if base is None:
        return [], {}
    items: list[dict[str, Any]] = json.loads((base / f"{split}.json").read_text(encoding="utf-8"))
    tables_file = base / f"{split}_tables.json"
    records: dict[str, dict[str, Any]] = {}
    if tables_file.is_file():
        records = {r["db_id"]: r for r in json.loads(tables_file.read_text(encoding="utf-8"))}
    databases: dict[str, Database] = {}
    tasks = []
    for i, item in enumerate(items):
        db_id = item["db_id"]
        if db_id not in databases:
            path = base / f"{split}_databases" / db_id / f"{db_id}.sqlite"
            if not path.is_file():
                raise MissingData(f"{path} is missing: question {i} of {split}.json names database {db_id!r}")
            record = records.get(db_id) or tables_record(db_id, path)
            databases[db_id] = Database(db_id, path, describe(record), create_statements(path))
        tasks.append(
            Task(
                task_id=f"{split}-{i}",
                split=split,
                db_id=db_id,
                question=item["question"],
                evidence=item.get("evidence", ""),
                sql=item["SQL"],
                difficulty=item.get("difficulty", ""),
                kind=item.get("template", item.get("difficulty", "")) or "bird",
            )
        )
    return tasks, databases


def load(data_dir: Path) -> tuple[dict[str, list[Task]], dict[tuple[str, str], Database]]:
    """Every split found under `data_dir`: tasks by split, databases by (split, db_id)."""
    tasks: dict[str, list[Task]] = {}
    databases: dict[tuple[str, str], Database] = {}
    for split in SPLITS:
        split_tasks, split_dbs = load_split(data_dir, split)
        if split_tasks:
            tasks[split] = split_tasks
            databases.update({(split, db_id): db for db_id, db in split_dbs.items()})
    if not tasks:
        raise MissingData(f"{data_dir} holds no BIRD split: expected train.json or dev.json (or train/, dev/)")
    return tasks, databases
