"""Sheet's tasks: generated tables and goals (data/tables.json, data/templates.json; gold sheets
made by the expert with the tools on a copy of the workbook), and AgentBoard's `sheet.jsonl`
loaded from a directory with the original's reference workbook.

AgentBoard's file holds each goal's final sheet and a reference action path, not the sheets it
starts from; those are in the reference spreadsheet the original copies into a Google account
(`Toolusage/toolusage/utils/sheet/Test Sheet-For Copy.xlsx` in AgentGym's checkout: a SheetN and
an AnswerN worksheet per task). The loader takes that file (found beside the data, or named by
`workbook=`) and gives each task a workbook holding only the sheet its goal names.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openpyxl

from coevo.envs.sheet import expert
from coevo.envs.sheet.toolkit import SheetToolkit
from coevo.envs.sheet.workbook import SheetBook, SheetSpec
from coevo.envs.toolusage.spec import load_specs
from coevo.envs.toolusage.tasks import ToolTask, read_agentboard

DATA = Path(__file__).parent / "data"
SPECS = load_specs(DATA / "tools.json")
TABLES: list[dict[str, Any]] = json.loads((DATA / "tables.json").read_text(encoding="utf-8"))["tables"]
TEMPLATES: dict[str, str] = json.loads((DATA / "templates.json").read_text(encoding="utf-8"))["templates"]
#: AgentGym's sheet file has 20 tasks; the generated test split has as many.
AGENTGYM_TASKS = 20
WORKBOOK_NAME = "Test Sheet-For Copy.xlsx"
_SHEET_IN_GOAL = re.compile(r'"Sheet(\d{1,2})"')


@dataclass(frozen=True)
class Loaded:
    tasks: list[ToolTask]
    workbooks: dict[str, SheetSpec]


def sheet_in_goal(goal: str) -> str | None:
    """The sheet a goal names, read as the original reads it (`"SheetN"`, one or two digits)."""
    m = _SHEET_IN_GOAL.search(goal)
    return f"Sheet{m.group(1)}" if m else None


def _number(rng: random.Random, column: dict[str, Any]) -> float:
    value = rng.uniform(column["low"], column["high"])
    return float(round(value, column["decimals"]))


def _table(rng: random.Random, table: dict[str, Any]) -> list[list[Any]]:
    """A header and 6-10 records; numeric columns drawn without ties (sorting is then unique)."""
    columns = table["columns"]
    records = rng.sample(table["rows"], rng.randint(6, min(10, len(table["rows"]))))
    rows: list[list[Any]] = [[c["name"] for c in columns]]
    used: dict[str, set[float]] = {}
    for record in records:
        row: list[Any] = list(record)
        for column in columns[len(record) :]:
            seen = used.setdefault(column["name"], set())
            value = _number(rng, column)
            for _ in range(50):
                if value not in seen:
                    break
                value = _number(rng, column)
            seen.add(value)
            row.append(value)
        rows.append(row)
    return rows


def _spec(sheet: str, rows: list[list[Any]], table: dict[str, Any], notes: dict[int, str]) -> SheetSpec:
    formats = [c.get("format", "General") for c in table["columns"]]
    cells = tuple(
        (r, c, value, formats[c - 1] if r > 1 else "General")
        for r, row in enumerate(rows, 1)
        for c, value in enumerate(row, 1)
    )
    return SheetSpec(sheet, cells, tuple((r, 1, text) for r, text in notes.items()))


def _params(rng: random.Random, kind: str, rows: list[list[Any]], table: dict[str, Any]) -> dict[str, Any]:
    columns = table["columns"]
    numeric = [c for c in columns if c["kind"] == "number"]
    column = rng.choice(numeric)
    index = next(i for i, c in enumerate(columns) if c["name"] == column["name"])
    record = rng.randrange(1, len(rows))
    params: dict[str, Any] = {"column": column["name"], "key": rows[record][0], "topic": table["topic"]}
    if kind in ("update_value", "note_update"):
        params["value"] = _number(rng, column)
        params["record_row"] = record + 1
    elif kind == "delete_below":
        values = sorted(row[index] for row in rows[1:])
        params["value"] = values[rng.randint(1, len(values) - 3)]  # at least one deleted, three kept
    elif kind == "insert_last":
        spare = [r for r in table["rows"] if r[0] not in {row[0] for row in rows}]
        params["record"] = list(rng.choice(spare)) + [_number(rng, c) for c in columns[len(spare[0]) :]]
        params["row"] = str(params["record"])
    return params


def _show(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value == int(value) else str(value)


def generate(split: str, count: int, seed: int, exclude: frozenset[str] = frozenset()) -> Loaded:
    """`count` goals cycling through the kinds over random tables; none whose text is in
    `exclude` (the held-out split's goals, when generating the training split)."""
    rng = random.Random(f"sheet|{split}|{seed}")
    kinds = sorted(TEMPLATES)
    tasks: list[ToolTask] = []
    workbooks: dict[str, SheetSpec] = {}
    attempts = 0
    while len(tasks) < count:
        kind = kinds[attempts % len(kinds)]
        attempts += 1
        index = len(tasks)
        sheet = f"Sheet{index % 20 + 1}"
        table = rng.choice(TABLES)
        rows = _table(rng, table)
        params = _params(rng, kind, rows, table)
        notes = {}
        if kind == "note_update":
            notes[params["record_row"]] = f"New {params['column']}: {_show(params['value'])}"
        shown = {k: _show(v) if isinstance(v, float) else v for k, v in params.items()}
        goal = TEMPLATES[kind].format(sheet=sheet, **shown)
        if goal in exclude:
            continue
        data = _spec(sheet, rows, table, notes)
        toolkit = SheetToolkit(SPECS, SheetBook.of(data))
        plan = expert.solve(kind, toolkit, sheet, params)
        gold = toolkit.get_all_values()[1]
        task_id = f"{split}-{index}"
        workbooks[task_id] = data
        tasks.append(
            ToolTask(
                task_id=task_id,
                goal=goal,
                subgoals=(),
                answer=gold,
                goal_type=1,
                kind=kind,
                plan=tuple(plan),
                index=index,
            )
        )
    return Loaded(tasks, workbooks)


def _workbook_file(folder: Path, workbook: str | None) -> Path | None:
    if workbook:
        return Path(workbook)
    for candidate in (
        folder / WORKBOOK_NAME,
        folder.parent / "toolusage" / "utils" / "sheet" / WORKBOOK_NAME,
        folder / "toolusage" / "utils" / "sheet" / WORKBOOK_NAME,
    ):
        if candidate.is_file():
            return candidate
    return None


def load_file(data_dir: str, workbook: str | None = None) -> Loaded:
    """AgentBoard's sheet tasks in file order (AgentGym's index), each with its starting sheet
    and the reference path as its expert plan."""
    folder = Path(data_dir)
    path = folder / "sheet.jsonl" if folder.is_dir() else folder
    if not path.is_file() and (folder / "data" / "sheet.jsonl").is_file():
        folder, path = folder / "data", folder / "data" / "sheet.jsonl"
    rows = read_agentboard(path, "file")
    source = _workbook_file(folder if folder.is_dir() else folder.parent, workbook)
    if source is None:
        raise FileNotFoundError(
            f"{path}: Sheet's tasks start from the original's reference workbook ({WORKBOOK_NAME}, in AgentGym's "
            "agentenv-tool/Toolusage/toolusage/utils/sheet/); put it beside the data or pass -o workbook=PATH"
        )
    reference = openpyxl.load_workbook(source)
    # Only the sheet a goal names goes into its task's workbook: the other tasks' sheets and
    # the AnswerN sheets (which would give the answer away) are left out.
    specs = {ws.title: SheetSpec.of(ws) for ws in reference.worksheets if not ws.title.startswith("Answer")}
    tasks: list[ToolTask] = []
    workbooks: dict[str, SheetSpec] = {}
    for index, row in enumerate(rows):
        info = row["additional_info"]
        answer = info.get("answer")
        gold = json.loads(answer) if isinstance(answer, str) else answer
        sheet = sheet_in_goal(str(row["goal"]))
        if sheet is None or sheet not in specs:
            raise ValueError(f"{path}:{index + 1}: the goal names no sheet of {source.name}")
        subgoals = row["subgoals"]
        plan = expert.reference_plan(subgoals, sheet) if isinstance(subgoals, str) else None
        task = ToolTask(
            task_id=str(row["_task_id"]),
            goal=str(row["goal"]),
            subgoals=(subgoals,) if isinstance(subgoals, str) else tuple(subgoals),
            answer=gold,
            goal_type=info.get("goal_type"),
            difficulty=row.get("difficulty"),
            kind="reference_path" if plan else None,
            plan=tuple(plan or ()),
            index=index,
        )
        tasks.append(task)
        workbooks[task.task_id] = specs[sheet]
    return Loaded(tasks, workbooks)
