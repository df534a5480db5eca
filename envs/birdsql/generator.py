"""The generated BIRD-style set: SQLite databases and questions with gold SQL, in BIRD's layout.

`data/databases.json` describes each database (tables, each column's generator, row counts,
its split); `data/questions.json` holds question templates with evidence hints and gold SQL
(joins, aggregation, subqueries, percentages, as BIRD's questions exercise them). The build
fills the tables from a seed, draws each template's placeholders from the built database, keeps
the questions whose gold result is not empty, and writes BIRD's files: `<split>/<split>.json`,
`<split>/<split>_tables.json` and `<split>/<split>_databases/<db>/<db>.sqlite`. The same loader
then reads it and a user's BIRD copy (envs/birdsql/tasks.py). Built once per seed into the cache
(a second or so), published atomically so concurrent processes never see half a build.
"""

from __future__ import annotations

import datetime
import json
import os
import random
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from coevo.envs.birdsql.schema import tables_record
from coevo.paths import cache_dir

DATA = Path(__file__).parent / "data"
FORMAT_VERSION = 1
SPLITS = ("train", "dev")


def generated_dir(seed: int) -> Path:
    return cache_dir("birdsql") / f"generated-{seed}-v{FORMAT_VERSION}"


def sql_literal(value: Any) -> str:
    """A value as an SQL literal in gold SQL: numbers bare, text single-quoted."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"no literal for {value!r}")
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def _column_values(
    gen: dict[str, Any], rows: int, rng: random.Random, vocab: dict[str, list[str]], refs: list[Any]
) -> list[Any]:
    kind = gen["kind"]
    if kind == "serial":
        return list(range(1, rows + 1))
    if kind == "sequence":
        return [gen["values"][i % len(gen["values"])] for i in range(rows)]
    if kind == "choice":
        return [rng.choice(gen["values"]) for _ in range(rows)]
    if kind == "vocab":
        return [rng.choice(vocab[gen["values"]]) for _ in range(rows)]
    if kind == "int":
        step = gen.get("step", 1)
        return [rng.randrange(gen["min"], gen["max"] + 1, step) for _ in range(rows)]
    if kind == "real":
        return [round(rng.uniform(gen["min"], gen["max"]), gen["digits"]) for _ in range(rows)]
    if kind == "date":
        start = datetime.date.fromisoformat(gen["from"])
        span = (datetime.date.fromisoformat(gen["to"]) - start).days
        return [(start + datetime.timedelta(days=rng.randrange(span + 1))).isoformat() for _ in range(rows)]
    if kind == "pattern":
        words = gen["words"]
        return [gen["format"].format(word=words[i % len(words)], n=gen["start"] + i) for i in range(rows)]
    if kind == "ref":
        return [rng.choice(refs) for _ in range(rows)]
    raise ValueError(f"unknown column generator {kind!r}")


def build_database(path: Path, spec: dict[str, Any], vocab: dict[str, list[str]], rng: random.Random) -> None:
    """One database file from its spec: tables with keys and foreign keys, rows from `rng`."""
    conn = sqlite3.connect(path)
    values: dict[tuple[str, str], list[Any]] = {}
    for table in spec["tables"]:
        defs = []
        for col in table["columns"]:
            line = f"{col['name']} {col['type']}"
            if col["name"] == table["primary_key"]:
                line += " PRIMARY KEY"
            defs.append(line)
        for col in table["columns"]:
            if col["gen"]["kind"] == "ref":
                defs.append(f"FOREIGN KEY ({col['name']}) REFERENCES {col['gen']['table']}({col['gen']['column']})")
        conn.execute(f"CREATE TABLE {table['name']} (\n  " + ",\n  ".join(defs) + "\n)")
        columns = []
        for col in table["columns"]:
            gen = col["gen"]
            refs = values[(gen["table"], gen["column"])] if gen["kind"] == "ref" else []
            columns.append(_column_values(gen, table["rows"], rng, vocab, refs))
            values[(table["name"], col["name"])] = columns[-1]
        marks = ", ".join("?" * len(columns))
        conn.executemany(f"INSERT INTO {table['name']} VALUES ({marks})", list(zip(*columns)))
    conn.commit()
    conn.close()


def _questions(
    db_id: str, path: Path, templates: list[dict[str, Any]], variations: int, rng: random.Random
) -> list[dict[str, Any]]:
    """BIRD dev.json items for one database: each template's placeholders drawn from its rows."""
    conn = sqlite3.connect(path)
    items: list[dict[str, Any]] = []
    seen: set[str] = set()
    for template in templates:
        pools = [conn.execute(pick["sql"]).fetchall() for pick in template["picks"]]
        made = 0
        for _ in range(variations * 3):
            if made >= variations:
                break
            fill: dict[str, Any] = {}
            for pick, pool in zip(template["picks"], pools):
                fill.update(zip(pick["names"], rng.choice(pool)))
            sql = template["sql"].format(**{k: sql_literal(v) for k, v in fill.items()})
            if sql in seen:
                continue
            rows = conn.execute(sql).fetchall()
            if not rows or all(v is None for row in rows for v in row):
                continue
            seen.add(sql)
            made += 1
            items.append(
                {
                    "db_id": db_id,
                    "question": template["question"].format(**fill),
                    "evidence": template["evidence"].format(**fill),
                    "SQL": sql,
                    "difficulty": template["difficulty"],
                    "template": template["kind"],
                }
            )
    conn.close()
    return items


def build_generated(seed: int = 0, out: Path | None = None) -> Path:
    """Build the generated set for `seed` in BIRD's layout (once) and return its directory."""
    out = out or generated_dir(seed)
    if (out / "meta.json").exists():
        return out
    databases = json.loads((DATA / "databases.json").read_text())
    questions = json.loads((DATA / "questions.json").read_text())
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out.name + ".", dir=out.parent))
    per_split: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    tables: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    for db_id, spec in sorted(databases["databases"].items()):
        split = spec["split"]
        db_dir = tmp / split / f"{split}_databases" / db_id
        db_dir.mkdir(parents=True)
        db_path = db_dir / f"{db_id}.sqlite"
        build_database(db_path, spec, databases["vocab"], random.Random(f"{seed}:{db_id}:rows"))
        templates = [t for t in questions["templates"] if t["db"] == db_id]
        rng = random.Random(f"{seed}:{db_id}:questions")
        per_split[split] += _questions(db_id, db_path, templates, questions["variations"], rng)
        tables[split].append(tables_record(db_id, db_path))
    for split in SPLITS:
        items = per_split[split]
        random.Random(f"{seed}:{split}:order").shuffle(items)
        for i, item in enumerate(items):
            item["question_id"] = i
        (tmp / split / f"{split}.json").write_text(json.dumps(items, indent=1))
        (tmp / split / f"{split}_tables.json").write_text(json.dumps(tables[split], indent=1))
    meta = {
        "format": FORMAT_VERSION,
        "source": "generated",
        "seed": seed,
        "splits": {s: len(per_split[s]) for s in SPLITS},
    }
    (tmp / "meta.json").write_text(json.dumps(meta, indent=1))
    try:
        os.replace(tmp, out)
    except OSError:  # another process published the same build first
        shutil.rmtree(tmp)
    return out
