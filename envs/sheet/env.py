"""Sheet env: AgentGym's sheet tool tasks over a real xlsx workbook per session (docs/sheet.md).

Tools, argument formats, observation texts, the action line and `finish` are the original's
(envs/toolusage/ reads the line); Google Sheets is replaced by the session's own openpyxl copy of
its task's workbook (envs/sheet/workbook.py), so changes stay in the session and fork and replay
rebuild them. The reward is the original's cell-match score against the gold sheet after each
step, kept at its maximum: on the AgentGym routes every step returns it as its server does; on
the native routes it is the final step's reward, with `success` (score 1.0) in info.

Options: `data_dir` (AgentBoard's data folder or its sheet.jsonl: the `test` split, AgentGym's
indices), `workbook` (the original's reference xlsx, when not beside the data), `train_tasks`
(1000), `test_tasks` (20, generated when no file is given), `seed` (0).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from coevo.envs.base import StepResult
from coevo.envs.sheet import agentgym
from coevo.envs.sheet.scoring import match_score
from coevo.envs.sheet.tasks import AGENTGYM_TASKS, DATA, SPECS, generate, load_file
from coevo.envs.sheet.toolkit import Result, SheetToolkit
from coevo.envs.sheet.workbook import SheetBook, SheetSpec
from coevo.envs.toolusage import agentgym as tool_agentgym
from coevo.envs.toolusage.action import FORMAT_ERROR, ActionInputError, parse_line, server_line
from coevo.envs.toolusage.env import ToolEnv
from coevo.envs.toolusage.prompt import tool_prompt
from coevo.envs.toolusage.tasks import TaskSet, ToolTask
from coevo.envs.toolusage.toolkit import Toolkit

#: AgentGym's sheet server takes a step again while its observation contains "error", four
#: times at most (it sleeps 10 s between; here nothing waits).
AGENTGYM_TRIES = 4


@dataclass(frozen=True)
class SheetShared:
    tasks: TaskSet
    #: Each task's starting sheet (sessions build their own workbook from it).
    workbooks: dict[str, SheetSpec]


def _formula_call(tool: Callable[..., Result], params: Any, with_result: bool) -> Result:
    """The original's reading of the two formula tools: `position_list` if given, else the range."""
    extra = {"result_position": params["result_position"]} if with_result else {}
    if "position_list" in params:
        return tool(position_list=params["position_list"], operator=params["operator"], **extra)
    start, end = params["start_position"], params["end_position"]
    return tool(start_position=start, end_position=end, operator=params["operator"], **extra)


#: How the original's env reads each tool's arguments (`params[...]`, in its order).
READERS: dict[str, Callable[[SheetToolkit, Any], Result]] = {
    "open_sheet": lambda t, p: t.open_sheet(name=p["name"]),
    "del_sheet": lambda t, p: t.del_sheet(name=p["name"]),
    "freeze_data": lambda t, p: t.freeze_data(dimension=p["dimension"], num=p["num"]),
    "get_A1_annotation": lambda t, p: t.get_A1_annotation(row=p["row"], col=p["col"]),
    "insert_cols": lambda t, p: t.insert_cols(values_list=p["values_list"], col_idx=p["col_idx"]),
    "insert_rows": lambda t, p: t.insert_rows(values_list=p["values_list"], row_idx=p["row_idx"]),
    "delete_batch_data": lambda t, p: t.delete_batch_data(dimension=p["dimension"], index_list=p["index_list"]),
    "update_cell": lambda t, p: t.update_cell(position=p["position"], value=p["value"]),
    "update_cell_by_formula": lambda t, p: _formula_call(t.update_cell_by_formula, p, True),
    "update_range": lambda t, p: t.update_range(
        start_position=p["start_position"], end_position=p["end_position"], values_list=p["values_list"]
    ),
    "sort_sheet_by_col": lambda t, p: t.sort_sheet_by_col(col_num=p["col_num"], order=p["order"]),
    "merge_cells": lambda t, p: t.merge_cells(start_position=p["start_position"], end_position=p["end_position"]),
    "update_note": lambda t, p: t.update_note(position=p["position"], content=p["content"]),
    "get_all_values": lambda t, p: t.get_all_values(),
    "get_range_values": lambda t, p: t.get_range_values(
        start_position=p["start_position"], end_position=p["end_position"]
    ),
    "get_cell_value": lambda t, p: t.get_cell_value(position=p["position"]),
    "get_value_by_formula": lambda t, p: _formula_call(t.get_value_by_formula, p, False),
    "filter_cells": lambda t, p: t.filter_cells(
        query=p.get("query"), in_row=p.get("in_row"), in_column=p.get("in_column")
    ),
    "get_note": lambda t, p: t.get_note(position=p["position"]),
    "finish": lambda t, p: t.finish(),
}


class SheetEnv(ToolEnv):
    name = "sheet"
    progress: float
    version = "1"
    specs = SPECS
    agentgym_profile = agentgym.PROFILE
    agent_prompt = tool_prompt(SPECS, DATA / "prompt.json")
    #: AgentBoard's longest sheet reference path takes 29 tool calls (with open_sheet and finish, 31).
    max_steps = 40
    action_example = (
        "I open the sheet the goal names first.",
        "Action: open_sheet with Action Input: {'name': 'Sheet1'}",
    )

    @classmethod
    def load_shared(
        cls,
        data_dir: str | None = None,
        workbook: str | None = None,
        train_tasks: int | str = 1000,
        test_tasks: int | str = AGENTGYM_TASKS,
        seed: int | str = 0,
        **_: Any,
    ) -> SheetShared:
        workbooks: dict[str, SheetSpec] = {}
        if data_dir:
            loaded = load_file(data_dir, workbook)
        else:
            loaded = generate("test", int(test_tasks), int(seed))
        workbooks.update(loaded.workbooks)
        held_out = frozenset(t.goal for t in loaded.tasks)  # training never repeats a held-out goal
        train = generate("train", int(train_tasks), int(seed), held_out)
        workbooks.update(train.workbooks)
        return SheetShared(TaskSet({"train": train.tasks, "test": loaded.tasks}), workbooks)

    def make_toolkit(self, task: ToolTask) -> Toolkit:
        return SheetToolkit(SPECS, SheetBook.of(self.shared.workbooks[task.task_id]))

    @property
    def sheet_toolkit(self) -> SheetToolkit:
        assert isinstance(self.toolkit, SheetToolkit)
        return self.toolkit

    # ------------------------------------------------------------------ the step
    def _step(self, action: str) -> StepResult:
        assert self.task is not None
        line = server_line(action)
        if line is None:
            observation = FORMAT_ERROR  # done False, the reward as it stands
            done = False
        else:
            if not self.agentgym and "Action:" not in line:
                line = f"Action: {line}"  # a native client sends the text after "Action:"
            self._follow_plan(line)
            tries = AGENTGYM_TRIES if self.agentgym else 1
            for _ in range(tries):
                observation = self._run(line)
                if self.agentgym:
                    observation = tool_agentgym.step_observation(observation)
                if "error" not in observation.lower():
                    break
            done = self.finished
        info: dict[str, Any] = {"progress_rate": self.progress}
        if self.agentgym:
            return StepResult(observation, self.progress, done, info=info)
        ends = done or self.steps + 1 >= self.max_steps
        if ends:
            info["success"] = self.progress == 1.0
        return StepResult(observation, self.progress if ends else 0.0, done, info=info)

    def _run(self, line: str) -> str:
        """One action line as the original's SheetEnv.step runs it: its observation text; the
        score is updated after it unless the observation says "Invalid"."""
        toolkit = self.sheet_toolkit
        try:
            parsed = parse_line(line)
        except ActionInputError as exc:
            return f"ERROR | Exception({exc})"  # done as it was, no score update
        if parsed is None:
            return "ERROR | TypeError(cannot unpack non-iterable NoneType object)"
        name, params = parsed.name, parsed.params
        try:
            if name == "get_observation_space":
                observation: Any = ""
            elif name not in READERS:
                names = [spec.name for spec in self.specs if spec.listed]
                observation = f"ERROR | Invalid action: {name}. Please choose another valid action from {names}"
            else:
                _, observation = READERS[name](toolkit, params)
        except Exception as exc:  # reading the arguments failed: the original's text, not done
            observation = f"ERROR | {type(exc).__name__}({exc})"
            self.finished = False
            self._score(observation)
            return observation
        self.finished = "finish" in line.lower()
        self._score(str(observation))
        return str(observation)

    def _score(self, observation: str) -> None:
        if "Invalid" not in observation:
            gold = self.task.answer if self.task is not None else []
            score = match_score(self.sheet_toolkit.observation_space(), gold)
            self.progress = max(self.progress, float(score))
