"""Sheet's expert: makes a generated goal's change with the tools on a copy of the task's
workbook (positions read from the sheet, never assumed) and records the calls as the plan it
replays; for AgentBoard's tasks, the file's reference action path turned into action lines."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from openpyxl.utils.cell import get_column_letter

from coevo.envs.sheet.toolkit import SheetToolkit
from coevo.envs.toolusage.env import tool_line
from coevo.envs.toolusage.literal import NotALiteral, read_literal


class Solver:
    def __init__(self, toolkit: SheetToolkit, sheet: str) -> None:
        self.toolkit = toolkit
        self.lines: list[str] = []
        self.call("open_sheet", name=sheet)

    def call(self, tool: str, **arguments: Any) -> Any:
        self.lines.append(tool_line(tool, arguments))
        success, result = getattr(self.toolkit, tool)(**arguments)
        if not success:
            raise RuntimeError(f"{tool}{arguments}: {result}")
        return result

    def table(self) -> list[list[str]]:
        values: list[list[str]] = self.call("get_all_values")
        return values

    def column(self, name: str) -> int:
        return self.table()[0].index(name) + 1

    def row_of(self, key: str) -> int:
        return next(i for i, row in enumerate(self.table(), 1) if row[0] == key)


def _sort(order: str) -> Callable[[Solver, Mapping[str, Any]], None]:
    def solve(s: Solver, p: Mapping[str, Any]) -> None:
        col = s.column(p["column"])
        if order == "asc":
            s.call("freeze_data", dimension="rows", num=1)
        s.call("sort_sheet_by_col", col_num=col, order=order)

    return solve


def _update_value(s: Solver, p: Mapping[str, Any]) -> None:
    col, row = s.column(p["column"]), s.row_of(p["key"])
    s.call("update_cell", position=f"{get_column_letter(col)}{row}", value=p["value"])


def _delete_below(s: Solver, p: Mapping[str, Any]) -> None:
    table = s.table()
    col = table[0].index(p["column"])
    rows = [i for i, row in enumerate(table[1:], 2) if float(row[col].replace(",", "")) < float(p["value"])]
    s.call("delete_batch_data", dimension="row", index_list=rows)


def _total_below(s: Solver, p: Mapping[str, Any]) -> None:
    table = s.table()
    letter = get_column_letter(table[0].index(p["column"]) + 1)
    last = len(table)
    s.call(
        "update_cell_by_formula",
        start_position=f"{letter}2",
        end_position=f"{letter}{last}",
        result_position=f"{letter}{last + 1}",
        operator="SUM",
    )


def _insert_last(s: Solver, p: Mapping[str, Any]) -> None:
    s.call("insert_rows", values_list=[list(p["record"])], row_idx=len(s.table()) + 1)


def _note_update(s: Solver, p: Mapping[str, Any]) -> None:
    row = s.row_of(p["key"])
    note: str = s.call("get_note", position=f"A{row}")
    value = note.rsplit(":", 1)[1].strip()
    col = s.column(p["column"])
    s.call("update_cell", position=f"{get_column_letter(col)}{row}", value=value)


KINDS: dict[str, Callable[[Solver, Mapping[str, Any]], None]] = {
    "sort_desc": _sort("des"),
    "sort_asc": _sort("asc"),
    "update_value": _update_value,
    "delete_below": _delete_below,
    "total_below": _total_below,
    "insert_last": _insert_last,
    "note_update": _note_update,
}


def solve(kind: str, toolkit: SheetToolkit, sheet: str, params: Mapping[str, Any]) -> list[str]:
    """The action lines (ending with finish) that make the change on `toolkit`'s workbook."""
    solver = Solver(toolkit, sheet)
    KINDS[kind](solver, params)
    solver.lines.append(tool_line("finish", {}))
    return solver.lines


# ---------------------------------------------------------------------- AgentBoard's reference paths
_STEP = re.compile(r"^Action \d+: (\w+) with Action Input: (.*)$")
_RE_COMPILE = re.compile(r"^re\.compile\((.*)\)$", re.DOTALL)
#: Arguments the reference path writes as text (its log turned every value into `str`) that the
#: tools need as lists.
_LISTS = ("values_list", "index_list", "position_list")


def reference_plan(path: str, sheet: str) -> list[str] | None:
    """The reference action path as action lines (open_sheet first, finish last), or None where
    a step cannot be read. The path's `re.compile('...')` queries become the pattern text (the
    tools compile text as a regular expression)."""
    lines = [tool_line("open_sheet", {"name": sheet})]
    for text in path.splitlines():
        m = _STEP.match(text.strip())
        if m is None:
            continue
        try:
            args = read_literal(m.group(2))
            for name in _LISTS:
                if isinstance(args.get(name), str):
                    args[name] = read_literal(args[name])
            query = args.get("query")
            if isinstance(query, str) and (q := _RE_COMPILE.match(query)):
                args["query"] = read_literal(q.group(1))
        except (NotALiteral, AttributeError):
            return None
        lines.append(tool_line(m.group(1), args))
    lines.append(tool_line("finish", {}))
    return lines
