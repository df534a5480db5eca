"""TODOList env: the contract, the expert on every generated task, per-session accounts (fork
and isolation), the rewards on both routes, bad ids, and AgentBoard's files from a path."""

from __future__ import annotations

import json
from pathlib import Path

from coevo.envs import check_env
from coevo.envs.registry import make
from coevo.envs.todo.env import TodoEnv
from coevo.envs.todo.sandbox import Project, Task, TodoAccount
from coevo.envs.toolusage.tasks import ToolTask
from tests.todo.helpers import env_with

SMALL = {"train_tasks": 20, "test_tasks": 22}


def _account() -> TodoAccount:
    return TodoAccount(
        [Project("11", "School", 1)],
        [
            Task("1101", "11", 1, "Read chapter 3", "- Place: Library", "2020-03-02", 45, "minute", 2),
            Task("1102", "11", 2, "Write the essay", "- Place: Home", "2020-03-05", 90, "minute", 4),
        ],
    )


def _play(env: TodoEnv, task_id: str) -> dict[str, object]:
    env.reset(task_id=task_id)
    info: dict[str, object] = {}
    while (action := env.expert_action()) is not None:
        result = env.step(action)
        info = {**result.info, "reward": result.reward}
    return info


def test_todo_passes_the_env_contract() -> None:
    check_env("todo", **SMALL)


def test_the_expert_wins_every_generated_task_on_both_routes() -> None:
    env = make("todo")
    assert env.splits() == {"train": 1000, "test": 155}
    for task_id in env.task_ids("test"):
        info = _play(env, task_id)
        assert (info["reward"], info["success"], info["state_matches"]) == (1.0, True, True), task_id
    env.agentgym = True
    for task_id in env.task_ids("test")[:40]:
        assert _play(env, task_id)["reward"] == 1.0, task_id


def test_changes_stay_in_the_session_and_fork_copies_them() -> None:
    task = ToolTask("t", "Complete it.", ("done",), {"projects": [], "tasks": []}, {"current_date": "2020-03-01"})
    env = env_with([task], _account())
    env.reset(task_id="t")
    env.step("Action: complete_task with Action Input: {'task_id': '1101'}")
    assert "Read chapter 3" not in env.step("Action: get_tasks with Action Input: {'project_id': '11'}").observation
    other = env_with([task], _account())
    other.shared = env.shared  # another session of the same server
    other.reset(task_id="t")
    assert "Read chapter 3" in other.step("Action: get_tasks with Action Input: {'project_id': '11'}").observation
    twin = env_with([task], _account())
    twin.shared = env.shared
    twin.restore(env.snapshot())
    assert "Read chapter 3" not in twin.step("Action: get_tasks with Action Input: {'project_id': 11}").observation
    again = twin.step("Action: complete_task with Action Input: {'task_id': '1101'}")
    assert again.observation == "Task 1101 is not exists."


def test_unknown_ids_get_the_services_answers() -> None:
    task = ToolTask("t", "Look.", ("x",), {}, {"current_date": "2020-03-01"})
    env = env_with([task], _account())
    env.reset(task_id="t")
    assert env.step("Action: get_tasks with Action Input: {'project_id': '99'}").observation == "[]"
    assert env.step("Action: get_task_duration with Action Input: {'task_id': '99'}").observation == "Task not found"
    assert env.step("Action: delete_task with Action Input: {'task_id': '99'}").observation == "Task 99 is not exists."
    assert (
        env.step("Action: update_project with Action Input: {'project_id': '99', 'is_favorite': 'True'}").observation
        == "Project not found"
    )
    duration = env.step("Action: get_task_duration with Action Input: {'task_id': '1102'}").observation
    assert duration == "{'id': '1102', 'content': 'Write the essay', 'duration': '90(minute)'}"


def test_agentgym_finish_without_the_change_scores_zero() -> None:
    env = make("todo", **SMALL)
    change = next(t for t in env.taskset.splits["test"] if t.kind == "complete")
    env.agentgym = True
    env.reset(task_id=change.task_id)
    result = env.step("Action: finish with Action Input: {'answer': 'done'}")
    assert (result.done, result.reward) == (True, 0.0)  # the answer is right, the account is not
    env.agentgym = False
    env.reset(task_id=change.task_id)
    native = env.step("Action: finish with Action Input: {'answer': 'done'}")
    assert (native.reward, native.info["success"], native.info["state_matches"]) == (1.0, True, False)


def test_agentboard_files_load_with_the_original_projects(tmp_path: Path) -> None:
    projects = [
        {
            "name": "School",
            "is_favorite": False,
            "tasks": [
                {
                    "content": "Read chapter 3",
                    "description": "- Place: Library",
                    "due_date": "2020-03-02",
                    "duration": 45,
                    "duration_unit": "minute",
                    "priority": 2,
                },
            ],
        },
    ]
    state = {
        "projects": [{"order": 1, "color": "charcoal", "name": "School", "is_favorite": False}],
        "tasks": [
            {"order": 1, "content": "Read chapter 3", "is_completed": False, "priority": 2, "due_date": "2020-03-02"}
        ],
    }
    row = {
        "id": 0,
        "goal": "When is Read chapter 3 due?",
        "subgoals": ["2020-03-02"],
        "additional_info": {
            "answer": state,
            "init_config": {"current_date": "2020-03-01", "current_location": "New York"},
            "goal_type": 0,
            "tool": "todo",
        },
        "difficulty": "easy",
    }
    (tmp_path / "todo.jsonl").write_text(json.dumps(row) + "\n")
    (tmp_path / "projects.json").write_text(json.dumps(projects))
    env = make("todo", data_dir=str(tmp_path), train_tasks=3)
    assert env.task_ids("test") == ["file-0"]
    env.agentgym = True
    env.reset(task_id="file-0")
    listed = env.step("Action: get_projects with Action Input: {}").observation
    project_id = listed.split("'id': '")[1].split("'")[0]
    tasks = env.step(f"Action: get_tasks with Action Input: {{'project_id': '{project_id}'}}").observation
    assert "'due_date': '2020-03-02'" in tasks
    assert env.step("Action: finish with Action Input: {'answer': '2020-03-02'}").reward == 1.0
    # without projects.json the account is rebuilt from the recorded state
    (tmp_path / "projects.json").unlink()
    rebuilt = make("todo", data_dir=str(tmp_path), train_tasks=3)
    rebuilt.reset(task_id="file-0")
    assert rebuilt.toolkit.account.state() == state  # type: ignore[union-attr]
