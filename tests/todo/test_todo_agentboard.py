"""AgentBoard-format todo files (made-up requests of the file's kinds, our own account): the
expert reaches each recorded answer and final state through the tools on both routes; a request
the rules do not know, or whose recorded answer the account contradicts, gets no plan and a note
saying why, never a win."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from coevo.envs.registry import make
from coevo.envs.todo.env import TodoEnv
from coevo.envs.todo.requests import ASKS, RULES
from tests.toolusage.agentboard_files import play_expert, write_agentboard

PROJECTS = [
    {
        "name": "Errands",
        "is_favorite": False,
        "tasks": [
            {
                "content": "Buy stamps",
                "description": "- Place: Post office",
                "due_date": "2021-04-03",
                "duration": 15,
                "duration_unit": "minute",
                "priority": 3,
            },
            {
                "content": "Return library books",
                "description": "- Place: City library",
                "due_date": "2021-04-08",
                "duration": 30,
                "duration_unit": "minute",
                "priority": 4,
            },
            {
                "content": "Pick up dry cleaning",
                "description": "- Place: Main street",
                "due_date": "2021-04-10",
                "duration": 20,
                "duration_unit": "minute",
                "priority": 1,
            },
        ],
    },
    {
        "name": "Garden",
        "is_favorite": False,
        "tasks": [
            {
                "content": "Water ferns",
                "description": "- Place: Back yard",
                "due_date": "2021-04-05",
                "duration": 10,
                "duration_unit": "minute",
                "priority": 2,
            },
        ],
    },
]
TODAY = "2021-04-04"


def _state(projects: list[dict[str, Any]]) -> dict[str, Any]:
    """The recorded state of an account as AgentGym's todo server writes it."""
    return {
        "projects": [
            {"order": i, "color": "charcoal", "name": p["name"], "is_favorite": p["is_favorite"]}
            for i, p in enumerate(projects, 1)
        ],
        "tasks": [
            {
                "order": t.get("order", j),
                "content": t["content"],
                "is_completed": False,
                "priority": t["priority"],
                "due_date": t["due_date"],
            }
            for p in projects
            for j, t in enumerate(p["tasks"], 1)
        ],
    }


def _after(change: Any) -> dict[str, Any]:
    """The recorded state after a change (a task keeps its order when another goes)."""
    projects = copy.deepcopy(PROJECTS)
    for project in projects:
        for j, task in enumerate(project["tasks"], 1):
            task["order"] = j
    change(projects)
    return _state(projects)


def _row(goal: str, answer: Any, state: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "goal": goal,
        "subgoals": [answer],
        "additional_info": {
            "answer": state or _state(PROJECTS),
            "init_config": {"current_date": TODAY, "current_location": "New York"},
            "goal_type": 0,
            "tool": "todo",
        },
        "difficulty": "easy",
    }


def _drop(projects: list[dict[str, Any]], content: str) -> None:
    for project in projects:
        project["tasks"] = [t for t in project["tasks"] if t["content"] != content]


def _move(projects: list[dict[str, Any]], content: str, due: str) -> None:
    next(t for p in projects for t in p["tasks"] if t["content"] == content)["due_date"] = due


ROWS = [
    _row("What is the priority level of the task 'Buy stamps' in the Errands project? Please answer as a number. ", 3),
    _row(
        "Which task in the Errands project requires the least amount of time? "
        "Please answer in the form of a list ['task1', 'task2', ...]. ",
        ["Buy stamps"],
    ),
    _row("Until today, how many tasks are overdue? Please give me a number as an answer. ", 1),
    _row(
        "Which project has the most urgent task based on priority level? Please answer in the form of a string. ",
        "Errands",
    ),
    # the file's wording of a description is pinned into the account
    _row(
        'What is the description of the task "Water ferns"? Please answer in the form of a string. ',
        "- Place: Back yard, by the fence",
    ),
    _row(
        'Mark the task "Return library books" as completed. ',
        "done",
        _after(lambda p: _drop(p, "Return library books")),
    ),
    _row(
        'Could you update the due date of the task "Water ferns" to be two days later in the "Garden" project? ',
        "done",
        _after(lambda p: _move(p, "Water ferns", "2021-04-07")),
    ),
    _row(
        'Please help me mark all tasks in the "Errands" project with priority 3 or higher as completed. Then, could '
        "you tell me the total number of completed tasks across all projects? Please answer as a number. ",
        2,
        _after(lambda p: (_drop(p, "Buy stamps"), _drop(p, "Return library books"))),
    ),
    # the record deletes only Buy stamps: Pick up dry cleaning's duration is pinned outside the bound
    _row(
        'Please help me find and delete all tasks in the "Errands" project that have a duration less than 25 minutes. ',
        "done",
        _after(lambda p: _drop(p, "Buy stamps")),
    ),
    # "before task X" reads X's project, also where the request says the whole account (the file's
    # answers do: the account-wide reading would answer Yes, and add Water ferns to the list)
    _row(
        "Is there any task in the Todoist account that needs to be completed before the task 'Water ferns' in the "
        "Garden project? Please answer 'Yes' or 'No'. ",
        "No",
    ),
    _row(
        'What tasks need to be completed before the due date of "Pick up dry cleaning"? '
        "Please answer in the form of a list ['task1', 'task2', ...]. ",
        ["Buy stamps", "Return library books"],
    ),
    # not a request the rules know
    _row("Sing me a song about my chores, please. ", "done"),
    # a recorded answer the account contradicts (it has two projects)
    _row("How many projects are there? Please answer in the form of a number. ", 3),
    # a change whose recorded state is not what the change makes
    _row('Delete the task "Buy stamps". ', "done", _state(PROJECTS)),
    # a task the account does not hold
    _row(
        "What is the priority level of the task 'Feed the cat' in the Errands project? Please answer as a number. ", 2
    ),
]


def _load(tmp_path: Path) -> TodoEnv:
    write_agentboard(tmp_path / "todo.jsonl", ROWS)
    (tmp_path / "projects.json").write_text(json.dumps(PROJECTS))
    env = make("todo", data_dir=str(tmp_path), train_tasks=3)
    assert isinstance(env, TodoEnv)
    return env


def test_the_expert_reaches_each_recorded_answer_through_the_tools(tmp_path: Path) -> None:
    env = _load(tmp_path)
    planned = [t for t in env.taskset.splits["test"] if t.plan]
    assert [t.index for t in planned] == list(range(11))
    for task in planned:
        last, result = play_expert(env, task.task_id)[-1]
        reward, info = result.reward, result.info
        assert info["success"] is True and info["state_matches"] is True, task.goal
        assert reward == 1.0
        # the answer given is the one recorded, reached by reading the account first
        assert last.startswith("finish") and repr(task.subgoals[0]) in last
        assert len(task.plan) > 1
    env.agentgym = True
    for task in planned:
        reward = play_expert(env, task.task_id)[-1][1].reward
        assert reward == 1.0, task.goal  # AgentGym's todo reward: rate 1.0 and the recorded state


def test_requests_are_planned_from_the_account_not_the_record(tmp_path: Path) -> None:
    env = _load(tmp_path)
    tasks = env.taskset.splits["test"]
    overdue = tasks[2].plan
    assert "Action: get_user_current_date with Action Input: {}" in overdue  # "today" is asked, not assumed
    assert any("get_tasks" in line for line in overdue)
    compound = tasks[7].plan
    assert sum("complete_task" in line for line in compound) == 2
    assert compound[-1] == "Action: finish with Action Input: {'answer': 2}"


def test_free_fields_are_pinned_to_the_recorded_answers(tmp_path: Path) -> None:
    env = _load(tmp_path)
    account = env.shared.accounts["file-0"]
    durations = {t.content: t.duration for t in account.tasks}
    assert durations["Pick up dry cleaning"] == 25 and durations["Buy stamps"] == 15  # only the first moved
    water = next(t for t in account.tasks if t.content == "Water ferns")
    assert water.description == "- Place: Back yard, by the fence"


def test_unknown_and_contradicted_requests_are_exceptions_not_wins(tmp_path: Path) -> None:
    env = _load(tmp_path)
    unknown, contradicted, wrong_state, missing = env.taskset.splits["test"][11:]
    assert unknown.plan == () and unknown.kind is None
    assert unknown.note == "the rules do not recognise the request"
    assert contradicted.plan == () and contradicted.note == "the tools answer 2, the file records 3"
    assert wrong_state.plan == () and wrong_state.note == "the account does not end in the recorded state"
    assert missing.plan == () and missing.note == "not answerable from the account: no single task for 'Feed the cat'"
    for task in (unknown, contradicted, wrong_state, missing):
        env.reset(task_id=task.task_id)
        assert env.expert_action() is None


def test_every_rule_compiles_and_names_a_known_operation() -> None:
    kinds = [rule["kind"] for rule in RULES["rules"]]
    assert len(kinds) == len(set(kinds))  # one rule per kind
    for rule in RULES["rules"]:
        re.compile(rule["pattern"])
        assert rule["op"] == "change" or rule["op"] in ASKS, rule["kind"]
        if "then" in rule:
            assert rule["op"] == "change" and rule["then"]["op"] in ASKS, rule["kind"]
