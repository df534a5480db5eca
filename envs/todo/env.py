"""TODOList env: AgentGym's todo tool tasks over an offline Todoist sandbox (docs/todo.md).

Tools, argument formats, observation texts, the action line, `finish` and the rewards are the
original's (envs/toolusage/); Todoist is replaced by a per-session copy of the task's account
(envs/todo/sandbox.py), so changes stay in the session and fork and replay rebuild them.

Options: `data_dir` (AgentBoard's data folder or its todo.jsonl: the `test` split, AgentGym's
indices), `projects` (the original's projects.json, when not beside the data), `train_tasks`
(1000), `test_tasks` (155, generated when no file is given), `seed` (0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coevo.envs.base import StepResult
from coevo.envs.todo import agentgym
from coevo.envs.todo.sandbox import TodoAccount
from coevo.envs.todo.tasks import AGENTGYM_TASKS, DATA, generate, load_file
from coevo.envs.todo.toolkit import TodoToolkit
from coevo.envs.toolusage.env import ToolEnv
from coevo.envs.toolusage.prompt import tool_prompt
from coevo.envs.toolusage.spec import load_specs
from coevo.envs.toolusage.tasks import TaskSet, ToolTask
from coevo.envs.toolusage.toolkit import Toolkit

SPECS = load_specs(DATA / "tools.json")


@dataclass(frozen=True)
class TodoShared:
    tasks: TaskSet
    #: Each task's starting account (read-only: sessions work on copies).
    accounts: dict[str, TodoAccount]


class TodoEnv(ToolEnv):
    name = "todo"
    version = "1"
    specs = SPECS
    agentgym_profile = agentgym.PROFILE
    agent_prompt = tool_prompt(SPECS, DATA / "prompt.json")
    action_example = ("I need the project ids first.", "Action: get_projects with Action Input: {}")

    @classmethod
    def load_shared(
        cls,
        data_dir: str | None = None,
        projects: str | None = None,
        train_tasks: int | str = 1000,
        test_tasks: int | str = AGENTGYM_TASKS,
        seed: int | str = 0,
        **_: Any,
    ) -> TodoShared:
        accounts: dict[str, TodoAccount] = {}
        if data_dir:
            test_tasks_, account = load_file(SPECS, data_dir, projects)
            accounts.update({t.task_id: account for t in test_tasks_})
        else:
            test = generate(SPECS, "test", int(test_tasks), int(seed))
            test_tasks_ = test.tasks
            accounts.update(test.accounts)
        held_out = frozenset(t.goal for t in test_tasks_)  # training never repeats a held-out request
        train = generate(SPECS, "train", int(train_tasks), int(seed), held_out)
        accounts.update(train.accounts)
        return TodoShared(TaskSet({"train": train.tasks, "test": test_tasks_}), accounts)

    def agentgym_reward(self, done: bool) -> float:
        """AgentGym's todo server: the progress rate itself, and at `finish` 1.0 only when the
        rate is 1.0 and the account's state is the task's recorded one, else 0.0."""
        if not done:
            return self.progress
        expected = self._expected_state()
        matches = isinstance(self.toolkit, TodoToolkit) and self.toolkit.account.state() == expected
        return 1.0 if self.progress == 1.0 and matches else 0.0

    def _expected_state(self) -> Any:
        """The state a task expects: a generated task's `final_state`, a file's recorded answer."""
        answer = self.task.answer if self.task is not None else None
        if isinstance(answer, dict) and "final_state" in answer:
            return answer["final_state"]
        return answer

    def _step(self, action: str) -> StepResult:
        """The shared step; at a native episode's end, also whether the account is in the state
        the task expects (`state_matches`: AgentBoard's rate reads only the answers)."""
        result = super()._step(action)
        task, toolkit = self.task, self.toolkit
        if "success" in result.info and task is not None and isinstance(toolkit, TodoToolkit):
            result.info["state_matches"] = toolkit.account.state() == self._expected_state()
        return result

    def make_toolkit(self, task: ToolTask) -> Toolkit:
        config = task.init_config
        account = self.shared.accounts[task.task_id].copy()  # the session's own copy
        return TodoToolkit(SPECS, account, str(config.get("current_date", "")), str(config.get("current_location", "")))
