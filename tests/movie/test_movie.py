"""Movie env: the contract, the expert on every generated task, TMDB's answers for what the
database lacks, the subgoal cleaning, rewards and AgentBoard's file."""

from __future__ import annotations

import json
from pathlib import Path

from coevo.envs import check_env
from coevo.envs.movie.toolkit import NOT_FOUND
from coevo.envs.registry import make
from coevo.envs.toolusage.tasks import ToolTask
from tests.movie.helpers import env_with

SMALL = {"train_tasks": 20, "test_tasks": 20}


def test_movie_passes_the_env_contract() -> None:
    check_env("movie", **SMALL)


def test_the_expert_wins_every_generated_task() -> None:
    env = make("movie")
    assert env.splits() == {"train": 1000, "test": 238}
    for task_id in env.task_ids("test"):
        env.reset(task_id=task_id)
        result = None
        while (action := env.expert_action()) is not None:
            result = env.step(action)
        assert result is not None and (result.reward, result.info["success"]) == (1.0, True), task_id


def test_unknown_queries_get_tmdbs_answers() -> None:
    env = env_with([ToolTask("t", "Anything.", ("x",), "x")])
    env.reset(task_id="t")
    assert env.step("Action: get_movie_details with Action Input: {'movie_id': 1}").observation == NOT_FOUND
    assert env.step("Action: get_person_details with Action Input: {'person_id': 'abc'}").observation == NOT_FOUND
    assert env.step("Action: get_search_person with Action Input: {'person_name': 'Nobody Atall'}").observation == "[]"
    missing = env.step("Action: get_search_movie with Action Input: {'movie_name': 'No Such Film'}")
    assert missing.observation == "ERROR | IndexError(list index out of range)"  # results[0] of none


def test_subgoals_drop_the_fields_that_drift() -> None:
    catalogue = env_with([]).shared.catalogue
    movie_id = min(catalogue.movies)
    title = catalogue.movies[movie_id].title
    env = env_with([ToolTask("t", "Details.", ({"title": title},), title)])
    env.reset(task_id="t")
    details = env.step(f"Action: get_movie_details with Action Input: {{'movie_id': {movie_id}}}")
    assert "'budget': " in details.observation  # shown to the agent, not counted
    assert env.progress == 1.0  # the cleaned subgoal {'title': ...} matched


def test_agentgym_reward_is_the_raw_progress_rate() -> None:
    env = env_with([ToolTask("t", "Two parts.", ("a", 3), 3)])
    env.agentgym = True
    env.reset(task_id="t")
    assert env.step("Action: finish with Action Input: {'answer': 'a'}").reward == 0.5


def test_agentboard_files_load_in_order(tmp_path: Path) -> None:
    rows = [
        {
            "id": 3,
            "goal": "Who directed it?",
            "subgoals": ["Someone"],
            "additional_info": {"answer": "Someone", "goal_type": 0, "tool": "movie"},
            "difficulty": "easy",
        },
        {
            "id": 4,
            "goal": "Is it a comedy?",
            "subgoals": ["No"],
            "additional_info": {"answer": "No", "goal_type": 0, "tool": "movie"},
            "difficulty": "easy",
        },
    ]
    (tmp_path / "movie.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = make("movie", data_dir=str(tmp_path), train_tasks=5)
    assert env.task_ids("test") == ["file-3", "file-4"]
    env.agentgym = True
    assert env.agentgym_profile.adapt(env).task(1) == "file-4"
    env.reset(task_id="file-4")
    assert env.expert_action() is None
