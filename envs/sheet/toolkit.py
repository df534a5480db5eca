"""Sheet's tools over the session's workbook, answering as the original's `sheet_toolkits` does
over Google Sheets: `(success, result)`, a failure's result the `repr` of the error, the same
warnings, conversions (numeric text becomes a number) and messages.

`SheetEnv` dispatches to these as the original's env does; `NOT_OPEN` is what every tool but
`open_sheet` answers before a sheet is open (the original's `log_path` check).
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import regex

from coevo.envs.sheet.formula import OPERATORS
from coevo.envs.sheet.workbook import Sheet, SheetBook
from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.toolkit import Toolkit

NOT_OPEN = "Please open a sheet before operating it"
WHOLE_SHEET_DELETE = "Warning: You cannot delete whole sheet at once, please try other functions"
WHOLE_SHEET_UPDATE = "Warning: You cannot update whole sheet at once, please try other functions"
NOT_2D = "The values_list needs to be a 2D list, please check your parameter"
BAD_OPERATOR = 'the operator should be one of the ["SUM", "AVERAGE", "COUNT", "MAX", "MIN", "MINUS", "PRODUCT"]'
BAD_A1 = (
    "In the sheet formula, you should use A1 notation to display all positions in the "
    "sheet and you can use get_A1_annotation(row, col) to get its A1 address."
)
BAD_A1_RANGE = (
    "In the sheet formula, you should use A1 notation to display the start and end cell address in the "
    "sheet and you can use get_A1_annotation(row, col) to get its A1 address."
)
_ONE_LETTER_A1 = re.compile(r"^[A-Z]{1}[0-9]+$")
#: The time one filter_cells search may take, all cells together.
FILTER_SECONDS = 1.0

Result = tuple[bool, Any]
_Tool = TypeVar("_Tool", bound=Callable[..., Result])


def needs_sheet(tool: _Tool) -> _Tool:
    """The original's `log_path` check: before a sheet is open the tool answers NOT_OPEN (its
    arguments already read by the env)."""

    @functools.wraps(tool)
    def guarded(self: SheetToolkit, *args: Any, **kwargs: Any) -> Result:
        if not self.is_open:
            return False, NOT_OPEN
        return tool(self, *args, **kwargs)

    return guarded  # type: ignore[return-value]


def is_a1(text: Any) -> bool:
    """The original's A1 check: one capital letter, then digits (a non-string fails in `re`)."""
    return _ONE_LETTER_A1.match(text) is not None


def numeric(value: Any) -> bool:
    """The original's test: `float(value)` without ValueError (None or a list raise TypeError)."""
    try:
        float(value)
        return True
    except ValueError:
        return False


def as_number(value: Any) -> Any:
    return float(value) if numeric(value) else value


def as_numbers(rows: Any) -> list[list[Any]]:
    return [[as_number(v) for v in row] for row in rows]


class SheetToolkit(Toolkit):
    def __init__(self, specs: Sequence[ToolSpec], book: SheetBook) -> None:
        super().__init__(specs)
        self.book = book

    @property
    def sheet(self) -> Sheet:
        assert self.book.current is not None
        return self.book.current

    @property
    def is_open(self) -> bool:
        return self.book.current is not None

    def observation_space(self) -> Any:
        """What the original's env scores after a step: `get_all_values()[1]`, which is the
        second character of NOT_OPEN ('l') before a sheet is open, and an error text for an
        empty sheet."""
        if not self.is_open:
            return NOT_OPEN[1]
        return self.get_all_values()[1]

    # ------------------------------------------------------------------ tools
    def open_sheet(self, name: Any) -> Result:
        try:
            self.book.current = self.book.worksheet(name)
        except Exception as error:
            return False, repr(error)
        return True, self.book.current

    @needs_sheet
    def del_sheet(self, name: Any) -> Result:
        # The original hands the name to gspread's del_worksheet, which needs a Worksheet: it
        # always fails with this AttributeError, and nothing is deleted.
        return False, repr(AttributeError(f"'{type(name).__name__}' object has no attribute 'id'"))

    @needs_sheet
    def freeze_data(self, dimension: Any, num: Any) -> Result:
        try:
            num = int(num)
            if dimension == "rows":
                self.sheet.freeze(rows=num, cols=None)
            elif dimension == "columns":
                self.sheet.freeze(rows=None, cols=num)
            else:
                return False, repr("Error: the dimension should be one of the rows/columns")
        except Exception as error:
            return False, repr(error)
        return True, f"You have successfully freeze the {dimension} {num}"

    @needs_sheet
    def get_A1_annotation(self, row: Any, col: Any) -> Result:  # noqa: N802 (the original's name)
        try:
            return True, self.sheet.cell_address(int(row), int(col))
        except Exception as error:
            return False, repr(error)

    def _insert(self, values_list: Any, index: Any, rows: bool) -> Result:
        try:
            if not (isinstance(values_list, list) and all(isinstance(v, list) for v in values_list)):
                return False, repr(NOT_2D)
            values = as_numbers(values_list)
            current = self.get_all_values()[1]
            size = len(current) if rows else len(current[0])
            at_end = int(index) == size + 1
            if rows:
                self.sheet.insert_rows(values, _position(index), inherit_from_before=at_end)
            else:
                self.sheet.insert_cols(values, _position(index), inherit_from_before=at_end)
        except Exception as error:
            return False, repr(error)
        return True, self.get_all_values()[1]

    @needs_sheet
    def insert_cols(self, values_list: Any, col_idx: Any) -> Result:
        return self._insert(values_list, col_idx, rows=False)

    @needs_sheet
    def insert_rows(self, values_list: Any, row_idx: Any) -> Result:
        return self._insert(values_list, row_idx, rows=True)

    @needs_sheet
    def delete_batch_data(self, dimension: Any, index_list: Any) -> Result:
        try:
            ordered = sorted(index_list, key=lambda x: int(x), reverse=True)
            if dimension == "row":
                if len(index_list) >= len(self.get_all_values()[1]) - 1:
                    return False, repr(WHOLE_SHEET_DELETE)
                for i in ordered:
                    self.sheet.delete_row(i)
            elif dimension == "col":
                if len(index_list) == len(self.get_all_values()[1][0]):
                    return False, repr(WHOLE_SHEET_DELETE)
                for i in ordered:
                    self.sheet.delete_col(i)
            else:
                return False, repr("Wrong dimension, please choose from row/col")
        except Exception as error:
            return False, repr(error)
        return True, self.get_all_values()[1]

    @needs_sheet
    def update_cell(self, position: Any, value: Any) -> Result:
        try:
            self.sheet.update(_label(position), as_number(value), user_entered=True)
        except Exception as error:
            return False, repr(error)
        return True, self.get_all_values()[1]

    @needs_sheet
    def update_cell_by_formula(
        self,
        start_position: Any = "B1",
        end_position: Any = "D2",
        position_list: Any = None,
        result_position: Any = "G2",
        operator: Any = "",
    ) -> Result:
        try:
            if operator not in OPERATORS:
                return False, repr(BAD_OPERATOR)
            if position_list is None:
                if not (is_a1(start_position) and is_a1(end_position) and is_a1(result_position)):
                    return False, repr(BAD_A1)
                formula = f"={operator}({start_position}:{end_position})"
            else:
                if not (all(is_a1(p) for p in position_list) and is_a1(result_position)):
                    return False, repr(BAD_A1)
                formula = f"={operator}({','.join(position_list)})"
            self.sheet.update(result_position, formula, user_entered=True)
            return True, self.get_all_values()[1]
        except Exception as error:
            return False, repr(error)

    @needs_sheet
    def update_range(self, start_position: Any, end_position: Any, values_list: Any) -> Result:
        try:
            current = self.get_all_values()[1]
            last = self.sheet.cell_address(len(current), len(current[0]))
            if start_position == "A1" and end_position == last:
                return False, repr(WHOLE_SHEET_UPDATE)
            values = as_numbers(values_list)
            self.sheet.update(f"{start_position}:{end_position}", values, user_entered=False)
        except Exception as error:
            return False, repr(error)
        return True, self.get_all_values()[1]

    @needs_sheet
    def sort_sheet_by_col(self, col_num: Any, order: Any) -> Result:
        try:
            self.sheet.sort(int(col_num), order)
        except Exception as error:
            return False, repr(error)
        return True, self.get_all_values()[1]

    @needs_sheet
    def merge_cells(self, start_position: Any, end_position: Any) -> Result:
        try:
            self.sheet.merge(f"{start_position}:{end_position}")
        except Exception as error:
            return False, repr(error)
        return True, self.get_all_values()[1]

    @needs_sheet
    def update_note(self, position: Any, content: Any) -> Result:
        try:
            self.sheet.set_note(position, content)
        except Exception as error:
            return False, repr(error)
        return True, f"Updated! the {position}'s note is {self.get_note(position)[1]}"

    @needs_sheet
    def get_all_values(self) -> Result:
        try:
            values = self.sheet.all_values()
            values[0]  # noqa: B018 (an empty sheet fails here, as in the original)
        except Exception as error:
            return False, repr(error)
        return True, values

    @needs_sheet
    def get_range_values(self, start_position: Any, end_position: Any) -> Result:
        try:
            return True, self.sheet.get_values(f"{start_position}:{end_position}", combine_merged=True)
        except Exception as error:
            return False, repr(error)

    @needs_sheet
    def get_cell_value(self, position: Any) -> Result:
        try:
            return True, self.sheet.acell(position)
        except Exception as error:
            return False, repr(error)

    @needs_sheet
    def get_value_by_formula(
        self, start_position: Any = "B1", end_position: Any = "D2", position_list: Any = None, operator: Any = ""
    ) -> Result:
        """As the original: a scratch column is added after the data, the formula written to its
        first cell and read back, and the column deleted; where the positions are not A1 the
        original returns before deleting it, so the scratch column (a 1 on top) stays."""
        width = len(self.sheet.all_values()[0])  # outside the original's try: an empty sheet raises
        self._insert([[1]], width + 1, rows=False)
        scratch = self.sheet.cell_address(1, width + 1)
        try:
            if operator not in OPERATORS:
                self.sheet.delete_col(width + 1)
                return False, repr(BAD_OPERATOR)
            if position_list is None:
                if not (is_a1(start_position) and is_a1(end_position)):
                    return False, repr(BAD_A1_RANGE)
                formula = f"={operator}({start_position}:{end_position})"
            else:
                if not all(is_a1(p) for p in position_list):
                    return False, repr(BAD_A1)
                formula = f"={operator}({','.join(position_list)})"
            self.sheet.update(scratch, formula, user_entered=True)
            result = self.sheet.acell(scratch)
            self.sheet.delete_col(width + 1)
            return True, result
        except Exception as error:
            return False, repr(error)

    @needs_sheet
    def filter_cells(self, query: Any, in_row: Any = None, in_column: Any = None) -> Result:
        """The original compiles a text query as a regular expression and searches every cell.
        An agent's pattern can backtrack for ages (`(a+)+$`), so it runs under the `regex`
        module's time limit: past FILTER_SECONDS for the whole search the tool fails with
        `TimeoutError('regex timed out')` and nothing else in the server waits on it."""
        try:
            row = int(in_row) if in_row is not None else None
            column = int(in_column) if in_column is not None else None
            if not isinstance(query, str):  # gspread calls a non-text query's `search`
                raise AttributeError(f"'{type(query).__name__}' object has no attribute 'search'")
            pattern = regex.compile(query, flags=regex.VERSION0)
            deadline = time.monotonic() + FILTER_SECONDS

            def matches(value: str) -> bool:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("regex timed out")
                return pattern.search(value, timeout=left) is not None

            return True, self.sheet.findall(matches, row, column)
        except Exception as error:
            return False, repr(error)

    @needs_sheet
    def get_note(self, position: Any) -> Result:
        try:
            return True, self.sheet.note(position)
        except Exception as error:
            return False, repr(error)

    @needs_sheet
    def finish(self) -> Result:  # type: ignore[override]  # Sheet's finish takes no answer
        return True, self.get_all_values()[1]


def _position(index: Any) -> int:
    value = int(index)
    return value


def _label(position: Any) -> str:
    if not isinstance(position, str):
        raise AttributeError(f"'{type(position).__name__}' object has no attribute 'upper'")
    return position
