"""The env base class of the five tool envs: a toolkit behind AgentGym's one-line action.

A step reads the reply as AgentGym's tool server does (`action.py`), runs the tool on the
session's own toolkit (a sandbox built from the shared data at reset, so fork and replay rebuild
it by replaying the actions), logs the call and updates AgentBoard's progress rate. The episode
ends when the action line contains "finish" or "Finish" anywhere, as in the original.

Rewards: on the AgentGym routes (`self.agentgym`) every step returns what AgentGym's server
returns, 1.0 once the progress rate is positive, else 0.0; on the native routes the progress
rate is the reward of the step that ends the episode (or reaches the step cap), 0.0 before, and
`info` carries `progress_rate` on every step and `success` (progress 1.0) at the end.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from coevo.envs.base import Env, EpisodeTool, ResetResult, StepResult, ToolCall, UnknownTask, UnknownTool
from coevo.envs.toolusage import agentgym
from coevo.envs.toolusage.action import (
    FORMAT_ERROR,
    INVALID_INPUT,
    NO_ACTION_ERROR,
    ActionInputError,
    error_text,
    parse_line,
    server_line,
)
from coevo.envs.toolusage.progress import Matcher, progress_rate
from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.tasks import TaskSet, ToolTask
from coevo.envs.toolusage.toolkit import Toolkit

CHECK_VALID_ACTIONS = "check_valid_actions"


class ToolEnv(Env):
    """Subclasses set `specs`, build `shared` (a `TaskSet` in `shared.tasks`) and the toolkit."""

    specs: ClassVar[tuple[ToolSpec, ...]]
    #: Weather's location rule for the progress rate; None: equality only.
    matcher: ClassVar[Matcher | None] = None
    agentgym_profile = agentgym.PROFILE
    action_format = "Action: <tool name> with Action Input: <Python literal dict of arguments>"
    max_steps = 20
    default_split = "train"
    heldout_splits = ("test",)
    train_split = "train"
    cpu_heavy = False

    def __init__(self, shared: Any = None, **options: Any) -> None:
        super().__init__(shared, **options)
        self.task: ToolTask | None = None
        self.toolkit: Toolkit | None = None
        self.progress = 0.0
        self.finished = False
        #: How many lines of the task's plan this episode has taken, in order (the expert's place).
        self.plan_pos = 0

    # ------------------------------------------------------------- catalogue
    @property
    def taskset(self) -> TaskSet:
        tasks: TaskSet = self.shared.tasks
        return tasks

    def splits(self) -> Mapping[str, int]:
        return {split: len(tasks) for split, tasks in self.taskset.splits.items()}

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        tasks = self.taskset.splits.get(split, [])
        stop = len(tasks) if limit is None else offset + limit
        return [t.task_id for t in tasks[offset:stop]]

    def split_of(self, task_id: str) -> str:
        try:
            return self.taskset.by_id[task_id][0]
        except KeyError:
            raise UnknownTask(f"unknown task id {task_id!r}") from None

    def describe_task(self, task_id: str) -> dict[str, Any]:
        task = self.taskset.by_id[task_id][1]
        return {"task_type": task.kind or "file", "goal": task.goal, "difficulty": task.difficulty}

    # ------------------------------------------------------------- hooks for the envs
    @abstractmethod
    def make_toolkit(self, task: ToolTask) -> Toolkit:
        """The session's own toolkit for `task` (its sandbox copy included)."""

    def agentgym_reward(self, done: bool) -> float:
        """What AgentGym's server returns for this step: most tool servers turn any positive
        progress into 1.0 (TODOList's overrides this)."""
        return 1.0 if self.progress > 0 else 0.0

    # ------------------------------------------------------------- episode
    def _reset(self, task_id: str, seed: int) -> ResetResult:
        self.task = self.taskset.by_id[task_id][1]
        self.toolkit = self.make_toolkit(self.task)
        self.progress, self.finished, self.plan_pos = 0.0, False, 0
        return ResetResult(agentgym.first_observation(self.task.goal), {"task": self.task.goal})

    def _step(self, action: str) -> StepResult:
        assert self.task is not None and self.toolkit is not None
        line = server_line(action)
        if line is None:
            observation = FORMAT_ERROR
            self.finished = False  # the original answers a format error with done False
        else:
            if not self.agentgym and "Action:" not in line:
                line = f"Action: {line}"  # a native client sends the text after "Action:"
            self._follow_plan(line)
            observation = self._run(line)
            if self.agentgym:
                observation = agentgym.step_observation(observation)
        info: dict[str, Any] = {"progress_rate": self.progress}
        ends = self.finished or self.steps + 1 >= self.max_steps  # the base class truncates at the cap
        if self.agentgym:
            reward = self.agentgym_reward(line is not None and self.finished)
        else:
            reward = self.progress if ends else 0.0
            if ends:
                info["success"] = self.progress == 1.0
        return StepResult(observation, reward, self.finished, info=info)

    def _run(self, line: str) -> str:
        """One action line as the original env runs it: its observation text."""
        assert self.task is not None and self.toolkit is not None
        try:
            parsed = parse_line(line)
        except ActionInputError:
            return f"ERROR | Exception({INVALID_INPUT})"
        if parsed is None:
            return NO_ACTION_ERROR
        try:
            if parsed.name == CHECK_VALID_ACTIONS:
                names = [spec.name for spec in self.specs if spec.listed]
                observation: Any = f"You can use following valid actions: {names}"
            elif self.toolkit.knows(parsed.name):
                observation = self.toolkit.call(parsed.name, parsed.params)
            else:
                observation = f"ERROR | Invalid action: {parsed.name}."
        except Exception as exc:  # the original turns any tool failure into its text
            return error_text(exc)
        self.finished = "Finish" in line or "finish" in line
        if "Invalid" not in str(observation):
            rate = progress_rate(self.task.subgoals, self.toolkit.subgoals(), type(self).matcher)
            self.progress = max(self.progress, rate)
        return str(observation)

    # ------------------------------------------------------------- tools and expert
    def episode_tools(self) -> list[EpisodeTool]:
        if self.task is None:
            return []
        return [spec.episode_tool() for spec in self.specs if spec.listed]

    def tool_calls_action(self, calls: Sequence[ToolCall]) -> str:
        if len(calls) != 1:
            raise UnknownTool(f"{self.name} takes one tool call per step, not {len(calls)}")
        call = calls[0]
        if call.name not in {spec.name for spec in self.specs if spec.listed}:
            raise UnknownTool(f"{self.name} has no tool {call.name!r}")
        return tool_line(call.name, dict(call.arguments))

    def _follow_plan(self, line: str) -> None:
        """Advance the expert's place when this step takes the plan's next call."""
        assert self.task is not None
        if self.plan_pos < len(self.task.plan) and _same_call(line, self.task.plan[self.plan_pos]):
            self.plan_pos += 1

    def expert_action(self) -> str | None:
        """The next call of the task's gold plan not yet taken (None after it or without one)."""
        if self.task is None or self.done or self.plan_pos >= len(self.task.plan):
            return None
        line = self.task.plan[self.plan_pos]
        if self.agentgym:
            return line
        # A native client writes the action after its own "Action:" (the ReAct reply), and step()
        # adds the label back: the native expert's action is that text, not the whole line.
        return line.removeprefix("Action:").strip()


def tool_line(name: str, arguments: Mapping[str, Any]) -> str:
    """The action line calling `name`: the input as a Python literal (JSON's true/null are not)."""
    return f"Action: {name} with Action Input: {dict(arguments)!r}"


def _same_call(line: str, planned: str) -> bool:
    try:
        taken, wanted = parse_line(line), parse_line(planned)
    except ActionInputError:
        return False
    return taken is not None and wanted is not None and (taken.name, taken.params) == (wanted.name, wanted.params)
