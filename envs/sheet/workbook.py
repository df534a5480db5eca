"""The sheet sandbox: a real xlsx workbook (openpyxl) per session, with the worksheet operations
the original's tools call through gspread, done the way Google Sheets does them.

Each session loads its own copy from the task's xlsx bytes (`SheetBook.load`), so changes stay in
the session, and fork and replay rebuild them. Errors carry gspread's class names, because the
original's tools answer `repr(error)`; their texts are written from gspread's and the API's
behaviour, not recorded (docs/sheet.md).
"""

from __future__ import annotations

import io
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import openpyxl
from openpyxl.comments import Comment
from openpyxl.utils.cell import column_index_from_string, get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from coevo.envs.sheet.display import shown
from coevo.envs.sheet.formula import FormulaError, evaluate

#: Google's grid of a new sheet; a sheet's grid grows with its data.
GRID_ROWS, GRID_COLS = 1000, 26
_A1 = re.compile(r"^([A-Z]+)([0-9]+)$")
_REF_IN_FORMULA = re.compile(r"\b([A-Z]{1,3})([0-9]+)\b")
_RANGE_IN_FORMULA = re.compile(r"\b([A-Z]{1,3})([0-9]+)\b(?:(:)([A-Z]{1,3})([0-9]+)\b)?")


def shift_rows(formula: str, delta: int) -> str:
    """A formula moved `delta` rows by a sort: its references move with it (Google keeps a moved
    row's formulas pointing at that row)."""
    return _REF_IN_FORMULA.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + delta}", formula)


def reindex(formula: str, rows: bool, at: int, delta: int) -> str:
    """A formula after rows (or columns) were inserted (`delta` > 0) or one deleted (`delta` -1)
    at `at`, as Google rewrites it: references past that point move; a range losing its first
    or last row shrinks; a single reference to the deleted row becomes #REF!."""

    def move(letters: str, number: int, end: str) -> str:
        index = number if rows else column_index_from_string(letters)
        if delta > 0 and index >= at:
            index += delta
        elif delta < 0 and index > at:
            index -= 1
        elif delta < 0 and index == at:
            if end == "single":
                return "#REF!"
            index = index if end == "first" else index - 1
        return f"{letters}{index}" if rows else f"{get_column_letter(index)}{number}"

    def rewrite(m: re.Match[str]) -> str:
        first = move(m.group(1), int(m.group(2)), "first" if m.group(3) else "single")
        if not m.group(3):
            return first
        last = move(m.group(4), int(m.group(5)), "last")
        if first == "#REF!" or _below(first, last, rows):
            return "#REF!"  # the whole range was deleted
        return f"{first}:{last}"

    return _RANGE_IN_FORMULA.sub(rewrite, formula)


def _below(first: str, last: str, rows: bool) -> bool:
    (r1, c1), (r2, c2) = a1_to_rowcol(first), a1_to_rowcol(last)
    return r2 < r1 if rows else c2 < c1


class WorksheetNotFound(Exception):
    """gspread's error for an unknown sheet title."""


class IncorrectCellLabel(Exception):
    """gspread's error for a cell label it cannot read."""


class APIError(Exception):
    """The Sheets API's refusal (gspread's `APIError`), with the API's error body."""

    def __init__(self, message: str) -> None:
        super().__init__({"code": 400, "message": message, "status": "INVALID_ARGUMENT"})


def a1_to_rowcol(label: Any) -> tuple[int, int]:
    m = _A1.match(str(label).strip().upper()) if isinstance(label, str) else None
    if m is None or int(m.group(2)) < 1:
        raise IncorrectCellLabel(label)
    return int(m.group(2)), column_index_from_string(m.group(1))


def rowcol_to_a1(row: int, col: int) -> str:
    if row < 1 or col < 1:
        raise IncorrectCellLabel(f"({row}, {col})")
    return f"{get_column_letter(col)}{row}"


def sheet_id(title: str) -> int:
    """A stable sheet id (Google's `gid`) for the worksheet's repr."""
    return zlib.crc32(title.encode("utf-8")) % 2_000_000_000


class Sheet:
    """One worksheet, as gspread's Worksheet offers it to the tools."""

    def __init__(self, ws: Worksheet) -> None:
        self.ws = ws
        self.title = ws.title
        self.id = sheet_id(ws.title)
        self.rows = max(GRID_ROWS, ws.max_row)
        self.cols = max(GRID_COLS, ws.max_column)

    def __repr__(self) -> str:
        return f"<Worksheet {self.title!r} id:{self.id}>"

    # ------------------------------------------------------------------ reading
    def _cell(self, row: int, col: int) -> Any:
        """The cell if it exists, else None (reading never creates cells: openpyxl's `cell()`
        would, and a sheet read often would grow)."""
        return self.ws._cells.get((row, col))

    def raw(self, row: int, col: int, _depth: int = 0) -> Any:
        """A cell's value, a formula evaluated to its number (or its error text)."""
        cell = self._cell(row, col)
        if cell is None:
            return None
        value = cell.value
        if cell.data_type == "f" and isinstance(value, str):
            if _depth > 50:
                return "#REF!"
            try:
                return evaluate(value, lambda r, c: self.raw(r, c, _depth + 1))
            except FormulaError as error:
                return str(error)
        return value

    def text(self, row: int, col: int) -> str:
        cell = self._cell(row, col)
        if cell is None or cell.value is None:
            return ""
        number_format = cell.number_format
        if cell.data_type == "f" and number_format == "General":
            number_format = self._inferred_format(str(cell.value))
        return shown(self.raw(row, col), number_format)

    def _inferred_format(self, formula: str) -> str:
        """Google's automatic format of a formula's result: the first referenced cell's, for the
        operators whose result is in the inputs' unit (not PRODUCT or COUNT)."""
        m = _REF_IN_FORMULA.search(formula)
        if m is None or formula.startswith(("=PRODUCT(", "=COUNT(")):
            return "General"
        first = self._cell(int(m.group(2)), column_index_from_string(m.group(1)))
        return first.number_format if first is not None and first.data_type != "f" else "General"

    def extent(self) -> tuple[int, int]:
        """(last row, last column) holding anything shown; (0, 0) for an empty sheet."""
        last_row = last_col = 0
        for (row, col), cell in list(self.ws._cells.items()):
            if cell.value is not None and (row > last_row or col > last_col) and self.text(row, col) != "":
                last_row, last_col = max(last_row, row), max(last_col, col)
        return last_row, last_col

    def values(self, top: int, left: int, bottom: int, right: int, combine_merged: bool) -> list[list[str]]:
        """The range's texts as the API returns them: trailing empty rows dropped, the rest
        padded to the widest row (gspread's `fill_gaps`); merged areas show their first cell."""
        fill: dict[tuple[int, int], str] = {}
        if combine_merged:
            for merged in self.ws.merged_cells.ranges:
                first = self.text(merged.min_row, merged.min_col)
                for r in range(merged.min_row, merged.max_row + 1):
                    for c in range(merged.min_col, merged.max_col + 1):
                        fill[(r, c)] = first
        grid = [[fill.get((r, c)) or self.text(r, c) for c in range(left, right + 1)] for r in range(top, bottom + 1)]
        rows = [row[: max((i + 1 for i, v in enumerate(row) if v != ""), default=0)] for row in grid]
        while rows and not rows[-1]:
            rows.pop()
        width = max((len(r) for r in rows), default=0)
        return [r + [""] * (width - len(r)) for r in rows]

    def all_values(self) -> list[list[str]]:
        bottom, right = self.extent()
        return self.values(1, 1, bottom, right, combine_merged=True) if bottom else []

    def range(self, label: str) -> tuple[int, int, int, int]:
        ends = str(label).split(":")
        try:
            corners = [a1_to_rowcol(end) for end in ends]
        except IncorrectCellLabel:
            raise APIError(f"Unable to parse range: {self.title}!{label}") from None
        if len(corners) > 2:
            raise APIError(f"Unable to parse range: {self.title}!{label}")
        (r1, c1), (r2, c2) = corners[0], corners[-1]
        top, left, bottom, right = min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)
        if bottom > self.rows or right > self.cols:
            raise APIError(
                f"Range ('{self.title}'!{label}) exceeds grid limits. Max rows: {self.rows}, max columns: {self.cols}"
            )
        return top, left, bottom, right

    def cell_address(self, row: int, col: int) -> str:
        label = rowcol_to_a1(row, col)
        self.range(label)
        return label

    def acell(self, label: Any) -> str:
        row, col = a1_to_rowcol(label)
        self.range(f"{get_column_letter(col)}{row}")
        return self.text(row, col)

    def get_values(self, label: str, combine_merged: bool = True) -> list[list[str]]:
        return self.values(*self.range(label), combine_merged=combine_merged)

    # ------------------------------------------------------------------ writing
    def put(self, row: int, col: int, value: Any, user_entered: bool) -> None:
        """Write one value: RAW keeps text as text; USER_ENTERED reads `=...` as a formula and
        numeric text as a number (the original has already turned numeric text into floats)."""
        if isinstance(value, (list, tuple, dict, set)):
            raise APIError("Invalid values: a cell value must be a string, number or boolean")
        if user_entered and isinstance(value, str) and not value.startswith("="):
            try:
                value = float(value)
            except ValueError:
                pass
        cell = self.ws.cell(row, col)
        cell.value = value
        if isinstance(value, str) and value.startswith("=") and not user_entered:
            cell.data_type = "s"  # RAW text: kept as text, never a formula

    def update(self, label: str, values: Any, user_entered: bool) -> None:
        """Write a 2D list (or one value) from the range's first cell, within the range."""
        top, left, bottom, right = self.range(label)
        rows = values if isinstance(values, list) else [[values]]
        single = ":" not in str(label)
        for i, row in enumerate(rows):
            cells = row if isinstance(row, list) else [row]
            for j, value in enumerate(cells):
                r, c = top + i, left + j
                if not single and (r > bottom or c > right):
                    raise APIError(
                        f"Requested writing within range [{self.title}!{label}], but tried writing to "
                        + (f"row [{r}]" if r > bottom else f"column [{get_column_letter(c)}]")
                    )
                if r > self.rows or c > self.cols:
                    raise APIError(f"Range ('{self.title}'!{label}) exceeds grid limits")
                self.put(r, c, value, user_entered)

    def _formats_of_row(self, row: int) -> list[str]:
        return [self.ws.cell(row, c).number_format for c in range(1, self.cols + 1)]

    def insert_rows(self, values: Sequence[Sequence[Any]], row: int, inherit_from_before: bool) -> None:
        if row < 1 or row > self.rows + 1:
            raise APIError(f"Invalid requests[0].insertDimension: range.startIndex must be within the grid ({row})")
        source = row - 1 if inherit_from_before else row
        formats = self._formats_of_row(source) if source >= 1 else []
        self.ws.insert_rows(row, len(values))
        self._reindex(rows=True, at=row, delta=len(values))
        self.rows += len(values)
        for i in range(len(values)):
            for c, fmt in enumerate(formats, 1):
                self.ws.cell(row + i, c).number_format = fmt
        for i, line in enumerate(values):
            for j, value in enumerate(line):
                self.put(row + i, 1 + j, value, user_entered=False)

    def insert_cols(self, values: Sequence[Sequence[Any]], col: int, inherit_from_before: bool) -> None:
        if col < 1 or col > self.cols + 1:
            raise APIError(f"Invalid requests[0].insertDimension: range.startIndex must be within the grid ({col})")
        source = col - 1 if inherit_from_before else col
        bottom = self.extent()[0]
        formats = [self.ws.cell(r, source).number_format for r in range(1, bottom + 1)] if source >= 1 else []
        self.ws.insert_cols(col, len(values))
        self._reindex(rows=False, at=col, delta=len(values))
        self.cols += len(values)
        for i in range(len(values)):
            for r, fmt in enumerate(formats, 1):
                self.ws.cell(r, col + i).number_format = fmt
        for i, line in enumerate(values):
            for j, value in enumerate(line):
                self.put(1 + j, col + i, value, user_entered=False)

    def delete_row(self, index: Any) -> None:
        start = _index(index)
        if start < 1 or start > self.rows:
            raise APIError(f"Invalid requests[0].deleteDimension: range ({start}) is out of the grid")
        if self.rows == 1:
            raise APIError("Invalid requests[0].deleteDimension: You can't delete all the rows on the sheet.")
        self.ws.delete_rows(start, 1)
        self._reindex(rows=True, at=start, delta=-1)
        self.rows -= 1

    def delete_col(self, index: Any) -> None:
        start = _index(index)
        if start < 1 or start > self.cols:
            raise APIError(f"Invalid requests[0].deleteDimension: range ({start}) is out of the grid")
        if self.cols == 1:
            raise APIError("Invalid requests[0].deleteDimension: You can't delete all the columns on the sheet.")
        self.ws.delete_cols(start, 1)
        self._reindex(rows=False, at=start, delta=-1)
        self.cols -= 1

    def _reindex(self, rows: bool, at: int, delta: int) -> None:
        for cell in list(self.ws._cells.values()):
            if cell.data_type == "f" and isinstance(cell.value, str):
                cell.value = reindex(cell.value, rows, at, delta)

    def frozen_rows(self) -> int:
        pane = self.ws.freeze_panes
        return a1_to_rowcol(pane)[0] - 1 if pane else 0

    def freeze(self, rows: int | None, cols: int | None) -> None:
        pane = self.ws.freeze_panes
        cur_row, cur_col = a1_to_rowcol(pane) if pane else (1, 1)
        new_row = cur_row if rows is None else rows + 1
        new_col = cur_col if cols is None else cols + 1
        if new_row - 1 > self.rows or new_col - 1 > self.cols or new_row < 1 or new_col < 1:
            raise APIError("Invalid requests[0].updateSheetProperties: frozen count is out of the grid")
        self.ws.freeze_panes = None if (new_row, new_col) == (1, 1) else f"{get_column_letter(new_col)}{new_row}"

    def sort(self, col: int, order: str) -> None:
        """gspread's `sort((col, order))`: every row below the frozen ones, over the whole grid's
        width, by the column's value; numbers before text before booleans ascending (text without
        case), reversed descending, empty cells last either way; ties keep their order."""
        if order not in ("asc", "des"):
            raise ValueError("Either 'asc' or 'des' should be specified as sort order.")
        if col < 1 or col > self.cols:
            raise APIError(f"Invalid requests[0].sortRange: sort column {col} is out of the grid")
        top, (bottom, right) = self.frozen_rows() + 1, self.extent()
        if bottom < top:
            return
        right = max(right, col)
        rows = [
            [(c.value, c.number_format, c.comment, c.data_type) for c in self.ws[r][:right]]
            + [(None, "General", None, "n")] * max(0, right - len(self.ws[r]))
            for r in range(top, bottom + 1)
        ]
        keys = [self.raw(r, col) for r in range(top, bottom + 1)]

        def rank(value: Any) -> tuple[int, Any]:
            if isinstance(value, bool):
                return 2, value
            if isinstance(value, (int, float)):
                return 0, float(value)
            return 1, str(value).lower()

        filled = [i for i, k in enumerate(keys) if k is not None and k != ""]
        empty = [i for i, k in enumerate(keys) if k is None or k == ""]
        filled.sort(key=lambda i: rank(keys[i]), reverse=order == "des")  # stable both ways
        for offset, i in enumerate(filled + empty):
            for c, (value, fmt, comment, kind) in enumerate(rows[i], 1):
                cell = self.ws.cell(top + offset, c)
                if kind == "f" and isinstance(value, str):
                    value = shift_rows(value, offset - i)
                cell.value, cell.number_format = value, fmt
                if kind == "s":
                    cell.data_type = "s"
                cell.comment = Comment(comment.text, comment.author) if comment is not None else None

    def merge(self, label: str) -> None:
        top, left, bottom, right = self.range(label)
        self.ws.merge_cells(start_row=top, start_column=left, end_row=bottom, end_column=right)

    def note(self, label: Any) -> str:
        row, col = a1_to_rowcol(label)
        comment = self.ws.cell(row, col).comment
        return comment.text if comment is not None else ""

    def set_note(self, label: Any, content: Any) -> None:
        row, col = a1_to_rowcol(label)
        self.range(f"{get_column_letter(col)}{row}")
        self.ws.cell(row, col).comment = Comment(str(content), "coevo") if content else None

    def findall(self, match: Any, in_row: int | None, in_column: int | None) -> list[str]:
        """gspread's `findall(regex, in_row, in_column)`: the matching cells' addresses, row by
        row, over the sheet's values (empty cells included, as '')."""
        found = []
        for r, row in enumerate(self.all_values(), 1):
            for c, value in enumerate(row, 1):
                if (in_row is None or r == in_row) and (in_column is None or c == in_column) and match(value):
                    found.append(f"{get_column_letter(c)}{r}")
        return found


def _index(index: Any) -> int:
    """A row/column number as gspread passes it on (`index - 1`): text fails there the same way."""
    if isinstance(index, str):
        raise TypeError("unsupported operand type(s) for -: 'str' and 'int'")
    if not isinstance(index, (int, float)) or index != int(index):
        raise APIError(f"Invalid value at 'requests[0].delete_dimension.range.start_index' ({index!r})")
    return int(index)


@dataclass(frozen=True)
class SheetSpec:
    """A worksheet as data (values with their number formats, notes, merged ranges, frozen
    panes), from which each session builds its own openpyxl workbook: cheaper than reading an
    xlsx per session, and the same workbook (`SheetBook.save` writes it as an xlsx file)."""

    title: str
    #: (row, column, value, number format); a formula is its `=...` text.
    cells: tuple[tuple[int, int, Any, str], ...]
    notes: tuple[tuple[int, int, str], ...] = ()
    merged: tuple[str, ...] = ()
    freeze: str | None = None

    def build(self) -> openpyxl.Workbook:
        wb = openpyxl.Workbook()
        ws = wb.active
        assert ws is not None
        ws.title = self.title
        for row, col, value, number_format in self.cells:
            cell = ws.cell(row, col, value)
            cell.number_format = number_format
        for row, col, text in self.notes:
            ws.cell(row, col).comment = Comment(text, "coevo")
        for label in self.merged:
            ws.merge_cells(label)
        ws.freeze_panes = self.freeze
        return wb

    @classmethod
    def of(cls, ws: Worksheet) -> SheetSpec:
        """The spec of a worksheet read from an xlsx (its styled empty cells kept for their format)."""
        cells, notes = [], []
        for row in ws.iter_rows():
            for cell in row:
                if cell.value is not None or cell.number_format != "General":
                    cells.append((cell.row, cell.column, cell.value, cell.number_format))
                if cell.comment is not None:
                    notes.append((cell.row, cell.column, cell.comment.text))
        merged = tuple(str(r) for r in ws.merged_cells.ranges)
        freeze = ws.freeze_panes if isinstance(ws.freeze_panes, str) else None
        return cls(ws.title, tuple(cells), tuple(notes), merged, freeze)


class SheetBook:
    """A session's spreadsheet: the workbook and the worksheet the tools act on."""

    def __init__(self, workbook: openpyxl.Workbook) -> None:
        self.workbook = workbook
        self.sheets = {ws.title: Sheet(ws) for ws in workbook.worksheets}
        self.current: Sheet | None = None

    @classmethod
    def of(cls, spec: SheetSpec) -> SheetBook:
        return cls(spec.build())

    @classmethod
    def load(cls, data: bytes) -> SheetBook:
        return cls(openpyxl.load_workbook(io.BytesIO(data)))

    def worksheet(self, name: Any) -> Sheet:
        try:
            return self.sheets[name]
        except (KeyError, TypeError):
            raise WorksheetNotFound(name) from None

    def save(self) -> bytes:
        """The workbook as an xlsx file."""
        out = io.BytesIO()
        self.workbook.save(out)
        return out.getvalue()
