"""Sheet env: the contract, the expert on every generated task on both routes, a real workbook
per session (fork and isolation), Google Sheets' behaviours the tools rely on (formatted texts,
sorting, formulas, merged cells, notes), the original's texts for bad input, its rewards, and
AgentBoard's files from a path."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from openpyxl.comments import Comment

from coevo.envs import check_env
from coevo.envs.registry import make
from coevo.envs.sheet.env import SheetEnv
from coevo.envs.sheet.scoring import match_score
from tests.sheet.helpers import PRODUCTS, act, env_with, spec

SMALL = {"train_tasks": 14, "test_tasks": 14}
START = [["Product", "Category", "Price", "Quantity"], ["beef", "Meat", "8.50", "13.00"]]


def _play(env: SheetEnv, task_id: str) -> tuple[float, dict[str, object]]:
    env.reset(task_id=task_id)
    reward, info = 0.0, {}
    while (action := env.expert_action()) is not None:
        result = env.step(action)
        reward, info = result.reward, result.info
    return reward, info


def test_sheet_passes_the_env_contract() -> None:
    check_env("sheet", **SMALL)


def test_the_expert_wins_every_generated_task_on_both_routes() -> None:
    env = make("sheet", train_tasks=30)
    assert env.splits() == {"train": 30, "test": 20}
    kinds = set()
    for task_id in env.task_ids("test"):
        reward, info = _play(env, task_id)
        assert (reward, info["success"]) == (1.0, True), task_id
        kinds.add(env.taskset.by_id[task_id][1].kind)  # type: ignore[attr-defined]
    assert len(kinds) == 7
    env.agentgym = True
    for task_id in env.task_ids("test")[:7]:
        assert _play(env, task_id)[0] == 1.0, task_id


def test_before_a_sheet_is_open_tools_answer_the_originals_text() -> None:
    env = env_with(START)
    assert act(env, "get_all_values") == "Please open a sheet before operating it"
    assert act(env, "open_sheet", "{'name': 'Sheet9'}") == "WorksheetNotFound('Sheet9')"
    assert act(env, "open_sheet", "{'name': 'Sheet1'}").startswith("<Worksheet 'Sheet1' id:")
    assert env.progress == 1.0  # the gold's two rows agree with the sheet where they overlap


def test_values_are_googles_formatted_texts_and_edits_keep_the_format() -> None:
    env = env_with(START)
    act(env, "open_sheet", "{'name': 'Sheet1'}")
    rows = json.loads(act(env, "get_all_values").replace("'", '"'))
    assert rows[1] == ["beef", "Meat", "8.50", "13.00"]
    act(env, "update_cell", "{'position': 'D2', 'value': '21'}")
    assert act(env, "get_cell_value", "{'position': 'D2'}") == "21.00"
    act(env, "insert_rows", "{'values_list': [['lamb', 'Meat', '6.1', 22]], 'row_idx': 6}")
    assert act(env, "get_range_values", "{'start_position': 'A6', 'end_position': 'D6'}") == str(
        [["lamb", "Meat", "6.10", "22.00"]]
    )  # appended: the row before's formats
    assert act(env, "get_cell_value", "{'position': 'E1'}") == ""


def test_sort_keeps_a_text_header_on_top_descending_and_needs_a_freeze_ascending() -> None:
    env = env_with(START)
    act(env, "open_sheet", "{'name': 'Sheet1'}")
    act(env, "sort_sheet_by_col", "{'col_num': 4, 'order': 'des'}")
    assert [r[0] for r in env.sheet_toolkit.get_all_values()[1]] == ["Product", "apple", "carrot", "beef", "pork"]
    act(env, "sort_sheet_by_col", "{'col_num': 4, 'order': 'asc'}")
    assert [r[0] for r in env.sheet_toolkit.get_all_values()[1]][-1] == "Product"  # text after numbers
    act(env, "sort_sheet_by_col", "{'col_num': 4, 'order': 'des'}")
    act(env, "freeze_data", "{'dimension': 'rows', 'num': 1}")
    act(env, "sort_sheet_by_col", "{'col_num': 4, 'order': 'asc'}")
    assert [r[0] for r in env.sheet_toolkit.get_all_values()[1]] == ["Product", "pork", "beef", "carrot", "apple"]
    bad = act(env, "sort_sheet_by_col", "{'col_num': 4, 'order': 'up'}")
    assert bad == "ValueError(\"Either 'asc' or 'des' should be specified as sort order.\")"


def test_formulas_evaluate_follow_a_sort_and_take_their_inputs_format() -> None:
    env = env_with(START)
    act(env, "open_sheet", "{'name': 'Sheet1'}")
    act(env, "update_cell_by_formula", "{'position_list': ['C2', 'D2'], 'result_position': 'E2', 'operator': 'SUM'}")
    act(
        env, "update_cell_by_formula", "{'position_list': ['C3', 'D3'], 'result_position': 'E3', 'operator': 'PRODUCT'}"
    )
    values = env.sheet_toolkit.get_all_values()[1]
    assert (values[1][4], values[2][4]) == ("21.50", "22.4")  # SUM keeps C's format, PRODUCT does not
    act(env, "freeze_data", "{'dimension': 'rows', 'num': 1}")
    act(env, "sort_sheet_by_col", "{'col_num': 1, 'order': 'asc'}")
    rows = {r[0]: r[4] for r in env.sheet_toolkit.get_all_values()[1]}
    assert (rows["beef"], rows["pork"], rows["apple"]) == ("21.50", "22.4", "")
    got = act(env, "get_value_by_formula", "{'start_position': 'D2', 'end_position': 'D5', 'operator': 'MAX'}")
    assert got == "120.00"  # MAX takes its inputs' format
    assert len(env.sheet_toolkit.get_all_values()[1][0]) == 5  # the scratch column is gone
    wrong = act(env, "get_value_by_formula", "{'start_position': 'd2', 'end_position': 'D5', 'operator': 'SUM'}")
    assert wrong.startswith("'In the sheet formula")
    assert env.sheet_toolkit.get_all_values()[1][0][-1] == "1"  # as the original, it stays behind
    assert "the operator should be one of" in act(
        env,
        "update_cell_by_formula",
        "{'start_position': 'C2', 'end_position': 'D2', 'result_position': 'F2', 'operator': 'POW'}",
    )


def test_merged_cells_notes_filters_and_deletes() -> None:
    notes = ((3, 1, "Price rose to 4.00"),)
    env = env_with(START, spec(notes=notes))
    act(env, "open_sheet", "{'name': 'Sheet1'}")
    assert act(env, "get_note", "{'position': 'A3'}") == "Price rose to 4.00"
    assert act(env, "get_note", "{'position': 'A2'}") == ""
    assert act(env, "update_note", "{'position': 'B2', 'content': 'checked'}") == "Updated! the B2's note is checked"
    assert act(env, "filter_cells", "{'query': '^(Meat|Fruits)$', 'in_column': 2}") == "['B2', 'B3', 'B4']"
    act(env, "merge_cells", "{'start_position': 'A1', 'end_position': 'B1'}")
    assert env.sheet_toolkit.get_all_values()[1][0][:2] == ["Product", "Product"]
    too_many = act(env, "delete_batch_data", "{'dimension': 'row', 'index_list': [2, 3, 4, 5]}")
    assert too_many == "'Warning: You cannot delete whole sheet at once, please try other functions'"
    act(env, "delete_batch_data", "{'dimension': 'row', 'index_list': [2, 4]}")
    assert [r[0] for r in env.sheet_toolkit.get_all_values()[1]] == ["Product", "pork", "carrot"]
    assert act(env, "del_sheet", "{'name': 'Sheet1'}") == "AttributeError(\"'str' object has no attribute 'id'\")"
    assert act(env, "get_A1_annotation", "{'row': 3, 'col': 27}").startswith("APIError(")
    assert act(env, "get_A1_annotation", "{'row': 3, 'col': 2}") == "B3"


def test_bad_input_gets_the_originals_texts_and_never_raises() -> None:
    env = env_with(START)
    assert env.step("no action here").observation.startswith("Format error")
    assert act(env, "finish", "{'x': 1 + 1}") == (
        "ERROR | Exception(Parameters in action input are not valid, please change your action input.)"
    )
    assert act(env, "open_sheet") == "ERROR | KeyError('name')"
    assert act(env, "open_sheet", "['Sheet1']") == "ERROR | TypeError(list indices must be integers or slices, not str)"
    assert act(env, "draw_chart").startswith(
        "ERROR | Invalid action: draw_chart. Please choose another valid action from ["
    )
    act(env, "open_sheet", "{'name': 'Sheet1'}")
    assert act(env, "insert_rows", "{'values_list': ['a'], 'row_idx': 2}") == (
        "'The values_list needs to be a 2D list, please check your parameter'"
    )
    assert act(
        env, "update_range", "{'start_position': 'A2', 'end_position': 'B2', 'values_list': [[1, 2, 3]]}"
    ).startswith("APIError(")
    assert not env.done


def test_match_score_is_the_originals() -> None:
    gold = [["a", "b"], ["1", "2"]]
    assert match_score([["a", "b"], ["1", "3"], ["x", "y"]], gold) == 0.75  # the overlap only
    assert match_score([["a"]], gold) == 1.0
    assert match_score("l", [["l"]]) == 1.0  # before a sheet is open: the text's 'l'
    assert match_score("Please open a sheet before operating it", gold) == 0.0
    assert match_score([], gold) == 0


def test_rewards_on_both_routes() -> None:
    gold = [["Product", "Category", "Price", "Quantity"], ["beef", "Meat", "8.50", "14.00"]]
    env = env_with(gold)
    env.agentgym = True
    first = env.step("Action: open_sheet with Action Input: {'name': 'Sheet1'}")
    assert (first.reward, first.done) == (0.875, False)  # the raw score, as AgentGym's sheet server returns it
    done = env.step("Action: finish with Action Input: {}")
    assert (done.reward, done.done) == (0.875, True)
    again = env.step("Action: update_cell with Action Input: {'position': 'D2', 'value': 14}", after_done=True)
    assert (again.reward, again.done) == (1.0, False)  # no end state there
    native = env_with(gold)
    act(native, "open_sheet", "{'name': 'Sheet1'}")
    assert native.step("Action: update_cell with Action Input: {'position': 'D2', 'value': 14}").reward == 0.0
    end = native.step("Action: finish with Action Input: {}")
    assert (end.reward, end.done, end.info["success"]) == (1.0, True, True)


def test_agentgym_takes_an_erroring_step_four_times() -> None:
    """The sheet server retries a step whose observation contains "error": a row holding the
    word is inserted four times there, once on the native routes."""
    for agentgym, count in ((True, 4), (False, 1)):
        env = env_with(START)
        env.agentgym = agentgym
        act(env, "open_sheet", "{'name': 'Sheet1'}")
        act(env, "insert_rows", "{'values_list': [['Terror', 'Toys', 1, 1]], 'row_idx': 2}")
        names = [r[0] for r in env.sheet_toolkit.get_all_values()[1]]
        assert names.count("Terror") == count


def test_each_session_has_its_own_workbook_and_fork_replays_it() -> None:
    env = env_with(START)
    act(env, "open_sheet", "{'name': 'Sheet1'}")
    act(env, "delete_batch_data", "{'dimension': 'row', 'index_list': [2]}")
    other = env_with(START)
    other.shared = env.shared
    other.reset(task_id="t")
    act(other, "open_sheet", "{'name': 'Sheet1'}")
    assert act(other, "get_cell_value", "{'position': 'A2'}") == "beef"
    twin = env_with(START)
    twin.shared = env.shared
    twin.restore(env.snapshot())
    assert act(twin, "get_cell_value", "{'position': 'A2'}") == "pork"
    book = openpyxl.load_workbook(__import__("io").BytesIO(env.sheet_toolkit.book.save()))
    assert book["Sheet1"]["A2"].value == "pork"  # the session's workbook is a real xlsx


def _reference_files(folder: Path, path_text: str) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.title = "Sheet1"
    for row in PRODUCTS:
        ws.append(row)
    for r in range(2, 6):
        ws.cell(r, 3).number_format = ws.cell(r, 4).number_format = "#,##0.00"
    ws["A3"].comment = Comment("discontinued", "x")
    answer = wb.create_sheet("Answer1")
    answer.append(["the answer"])
    (folder / "toolusage" / "utils" / "sheet").mkdir(parents=True)
    wb.save(folder / "toolusage" / "utils" / "sheet" / "Test Sheet-For Copy.xlsx")
    gold = [["Product", "Category", "Price", "Quantity"], ["apple", "Fruits", "1.20", "120.00"]]
    gold += [["carrot", "Vegetables", "0.40", "80.00"], ["beef", "Meat", "8.50", "13.00"]]
    row = {
        "task": "tool-operation",
        "id": 0,
        "goal": 'In "Sheet1", delete the discontinued product and sort by "Quantity" in descending order.',
        "subgoals": path_text,
        "additional_info": {"answer": json.dumps(gold), "init_config": None, "goal_type": 1, "tool": "sheet"},
        "difficulty": "easy",
    }
    (folder / "data").mkdir()
    (folder / "data" / "sheet.jsonl").write_text(json.dumps(row) + "\n")


def test_agentboard_files_load_with_the_reference_workbook(tmp_path: Path) -> None:
    path = (
        "Reference Action Path: \nAction 1: filter_cells with Action Input: {'query': \"re.compile('^pork$')\"}\n"
        "Action 2: delete_batch_data with Action Input: {'dimension': 'row', 'index_list': '[3]'}\n"
        "Action 3: sort_sheet_by_col with Action Input: {'col_num': '4', 'order': 'des'}\n"
    )
    _reference_files(tmp_path, path)
    env = make("sheet", data_dir=str(tmp_path / "data"), train_tasks=3)
    assert env.task_ids("test") == ["file-0"]
    reward, info = _play(env, "file-0")
    assert (reward, info["success"]) == (1.0, True)
    env.reset(task_id="file-0")
    assert act(env, "open_sheet", "{'name': 'Answer1'}") == "WorksheetNotFound('Answer1')"  # not given away
    act(env, "open_sheet", "{'name': 'Sheet1'}")
    assert act(env, "get_note", "{'position': 'A3'}") == "discontinued"
    (tmp_path / "toolusage" / "utils" / "sheet" / "Test Sheet-For Copy.xlsx").rename(tmp_path / "book.xlsx")
    with pytest.raises(FileNotFoundError, match="workbook="):
        make("sheet", data_dir=str(tmp_path / "data"), train_tasks=4)  # other options: not the cached data
    named = make("sheet", data_dir=str(tmp_path / "data"), workbook=str(tmp_path / "book.xlsx"), train_tasks=3)
    assert named.task_ids("test") == ["file-0"]


def test_each_tool_is_an_mcp_tool_of_the_episode() -> None:
    from coevo.envs.base import ToolCall

    env = env_with(START)
    tools = {tool.name: tool for tool in env.episode_tools()}
    assert len(tools) == 20 and "get_observation_space" not in tools
    assert tools["update_cell_by_formula"].parameters["required"] == ["result_position", "operator"]
    assert tools["filter_cells"].parameters["required"] == ["query"]
    env.step(env.tool_calls_action([ToolCall("open_sheet", {"name": "Sheet1"})]))
    line = env.tool_calls_action([ToolCall("filter_cells", {"query": "^beef$"})])
    assert env.step(line).observation == "['A2']"


def test_formulas_follow_inserted_and_deleted_rows_and_columns() -> None:
    env = env_with(START)
    act(env, "open_sheet", "{'name': 'Sheet1'}")
    act(
        env,
        "update_cell_by_formula",
        "{'start_position': 'D2', 'end_position': 'D5', 'result_position': 'D6', 'operator': 'SUM'}",
    )
    assert act(env, "get_cell_value", "{'position': 'D6'}") == "220.00"
    act(env, "delete_batch_data", "{'dimension': 'row', 'index_list': [2]}")  # the range's first row
    assert act(env, "get_cell_value", "{'position': 'D5'}") == "207.00"
    act(env, "insert_rows", "{'values_list': [['lamb', 'Meat', 6.1, 3]], 'row_idx': 3}")
    assert act(env, "get_cell_value", "{'position': 'D6'}") == "210.00"
    act(env, "insert_cols", "{'values_list': [['Code', 'P1']], 'col_idx': 1}")
    assert act(env, "get_cell_value", "{'position': 'E6'}") == "210.00"
    act(env, "update_cell_by_formula", "{'position_list': ['E2'], 'result_position': 'F2', 'operator': 'SUM'}")
    act(env, "delete_batch_data", "{'dimension': 'row', 'index_list': [2]}")
    assert act(env, "get_cell_value", "{'position': 'E5'}") == "203.00"


def test_a_runaway_filter_pattern_is_stopped_at_its_time_limit() -> None:
    env = env_with(START)
    act(env, "open_sheet", "{'name': 'Sheet1'}")
    act(env, "update_cell", "{'position': 'A2', 'value': '" + "a" * 40 + "b'}")
    assert act(env, "filter_cells", "{'query': '(a|aa)+$'}") == "TimeoutError('regex timed out')"
    assert act(env, "filter_cells", "{'query': 7}") == "AttributeError(\"'int' object has no attribute 'search'\")"
    assert act(env, "filter_cells", "{'query': '^pork$'}") == "['A3']"  # the session goes on
