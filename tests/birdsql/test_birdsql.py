"""BIRD-SQL: the generated set, BIRD's layout, episodes, the expert, tools and bad input."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from coevo.envs.base import EpisodeFinished, ToolCall, UnknownTask, UnknownTool
from coevo.envs.birdsql.env import BirdSqlEnv, Shared
from coevo.envs.birdsql.generator import build_generated
from coevo.envs.birdsql.sandbox import REFUSED_PREFIX
from coevo.envs.birdsql.tasks import MissingData


def test_the_generated_set_is_deterministic_and_covers_birds_kinds(bird_dir: Path, tmp_path: Path) -> None:
    again = build_generated(0, out=tmp_path / "again")
    for split in ("train", "dev"):
        assert (again / split / f"{split}.json").read_text() == (bird_dir / split / f"{split}.json").read_text()
    other = build_generated(1, out=tmp_path / "other")
    assert (other / "dev" / "dev.json").read_text() != (bird_dir / "dev" / "dev.json").read_text()
    items = [q for split in ("train", "dev") for q in json.loads((bird_dir / split / f"{split}.json").read_text())]
    sql = [q["SQL"] for q in items]
    assert len(set(sql)) == len(sql)
    assert sum("JOIN" in s for s in sql) and sum("(SELECT" in s for s in sql)
    assert sum("GROUP BY" in s for s in sql) and sum("COUNT(" in s or "AVG(" in s or "SUM(" in s for s in sql)
    assert all(q["evidence"] for q in items)
    assert set(Counter(q["difficulty"] for q in items)) == {"simple", "moderate", "challenging"}
    train_dbs = {q["db_id"] for q in json.loads((bird_dir / "train" / "train.json").read_text())}
    dev_dbs = {q["db_id"] for q in json.loads((bird_dir / "dev" / "dev.json").read_text())}
    assert train_dbs and dev_dbs and not train_dbs & dev_dbs  # dev databases are unseen, as in BIRD


def test_the_expert_wins_every_task_on_both_presentations(shared: Shared) -> None:
    for agentgym in (False, True):
        env = BirdSqlEnv(shared=shared)
        env.agentgym = agentgym
        for task_id in shared.by_id:
            env.reset(task_id=task_id)
            action = env.expert_action()
            assert action is not None
            result = env.step(action if not agentgym else shared.by_id[task_id].sql)
            assert (result.reward, result.done, result.info["success"]) == (1.0, True, True), task_id


def test_the_native_observation_shows_schema_question_and_evidence(env: BirdSqlEnv, shared: Shared) -> None:
    task = shared.tasks["dev"][0]
    obs = env.reset(task_id=task.task_id).observation
    assert "CREATE TABLE" in obs and task.question in obs and f"Evidence: {task.evidence}" in obs
    result = env.step("Thought: count them.\n\nAction: ```sql\nSELECT COUNT(*) FROM book\n```")
    assert result.observation == "[(300,)]" and result.reward == 0.0 and result.done
    assert result.info["sql"] == "SELECT COUNT(*) FROM book" and result.info["ground_truth"] == task.sql
    with pytest.raises(EpisodeFinished):
        env.step("SELECT 1")


@pytest.mark.parametrize(
    ("action", "why"),
    [
        ("DELETE FROM loan", "DELETE"),
        ("SELECT 1; DROP TABLE loan", "more than one statement"),
        ("ATTACH DATABASE '/tmp/x.sqlite' AS x", "ATTACH"),
        ("SELECT load_extension('x')", "load_extension"),
        ("", "empty"),
    ],
)
def test_bad_sql_is_refused_in_the_observation(env: BirdSqlEnv, shared: Shared, action: str, why: str) -> None:
    for agentgym in (False, True):
        env.agentgym = agentgym
        env.reset(task_id="dev-0")
        result = env.step(action)
        assert result.observation.startswith(REFUSED_PREFIX) and why in result.observation
        assert result.reward == 0.0 and result.done and result.info["refused"]
    env.agentgym = False
    env.reset(task_id="dev-0")
    assert env.step(env.expert_action() or "").reward == 1.0  # the database is intact


def test_a_runaway_join_is_stopped_and_scored_zero(bird_dir: Path) -> None:
    env = BirdSqlEnv(data_dir=str(bird_dir), time_limit=0.2)
    env.reset(task_id="dev-0")
    result = env.step("SELECT COUNT(*) FROM loan AS a, loan AS b, loan AS c")
    assert result.info["timed_out"] and result.reward == 0.0 and "time limit" in result.observation


def test_a_result_past_the_row_cap_is_cut_and_scores_zero(bird_dir: Path) -> None:
    env = BirdSqlEnv(data_dir=str(bird_dir), row_cap=5)
    env.reset(task_id="dev-0")
    result = env.step("SELECT * FROM loan")
    assert result.info["truncated"] and result.info["rows"] == 5 and result.reward == 0.0
    assert "more than 5 rows" in result.observation


def test_agentgym_state_is_cut_at_100_characters(env: BirdSqlEnv) -> None:
    env.agentgym = True
    env.reset(task_id="dev-0")
    result = env.step("SELECT * FROM loan")
    assert len(result.observation) == 103 and result.observation.endswith("...")


def test_a_flat_bird_copy_without_a_tables_file_loads(bird_dir: Path, shared: Shared, tmp_path: Path) -> None:
    """BIRD's unpacked dev.zip: dev.json and dev_databases/ at the top; the schema is read off the files."""
    shutil.copytree(bird_dir / "dev", tmp_path / "dev_copy")
    (tmp_path / "dev_copy" / "dev_tables.json").unlink()
    mine = BirdSqlEnv.load_shared(data_dir=str(tmp_path / "dev_copy"))
    assert list(mine.tasks) == ["dev"] and len(mine.tasks["dev"]) == len(shared.tasks["dev"])
    task = mine.tasks["dev"][0]
    assert mine.database(task).description == shared.database(shared.by_id[task.task_id]).description


def test_missing_bird_files_are_named(tmp_path: Path, bird_dir: Path) -> None:
    with pytest.raises(MissingData, match="no BIRD split"):
        BirdSqlEnv.load_shared(data_dir=str(tmp_path))
    shutil.copytree(bird_dir / "dev", tmp_path / "d")
    shutil.rmtree(tmp_path / "d" / "dev_databases" / "library")
    with pytest.raises(MissingData, match="library"):
        BirdSqlEnv.load_shared(data_dir=str(tmp_path / "d"))


def test_unknown_tasks_and_tool_calls(env: BirdSqlEnv) -> None:
    with pytest.raises(UnknownTask):
        env.reset(task_id="dev-100000")
    assert env.episode_tools() == []
    env.reset(task_id="dev-0")
    assert [t.name for t in env.episode_tools()] == ["execute_sql"]
    assert env.tool_calls_action([ToolCall("execute_sql", {"sql": "SELECT 1"})]) == "SELECT 1"
    for calls in ([], [ToolCall("drop", {})], [ToolCall("execute_sql", {"sql": 1})]):
        with pytest.raises(UnknownTool):
            env.tool_calls_action(calls)


def test_agentgym_indices_follow_sqlgyms_ranges(env: BirdSqlEnv, shared: Shared) -> None:
    adapter = env.agentgym_profile.adapt(env)
    assert adapter.task(0) == "train-0" and adapter.task(9428) == "dev-0"
    with pytest.raises(UnknownTask):
        adapter.task(len(shared.tasks["train"]))


def test_gold_results_are_kept_only_when_small(shared: Shared) -> None:
    from coevo.envs.birdsql import env as env_module

    path = shared.database(shared.tasks["train"][0]).path.parent.parent / "retail" / "retail.sqlite"
    small = env_module.gold_result(path, "SELECT COUNT(*) FROM order_item", 5.0, 10_000)
    large = env_module.gold_result(path, "SELECT * FROM order_item", 5.0, 10_000)
    assert small.rows == [(2000,)] and len(large.rows) == 2000
    assert (path, "SELECT COUNT(*) FROM order_item") in env_module._gold_cache
    assert (path, "SELECT * FROM order_item") not in env_module._gold_cache
    assert env_module.gold_time_limit(5.0) == 30.0 and env_module.gold_time_limit(60.0) == 60.0
