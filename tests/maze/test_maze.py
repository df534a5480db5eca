"""Maze's catalogue, bad input, the move limit and the shortest-path expert."""

from __future__ import annotations

import pytest

from coevo.envs.base import UnknownTask
from coevo.envs.registry import make
from coevo.envs.maze.env import MazeEnv
from tests.server.conftest import serve


@pytest.fixture(scope="module")
def env() -> MazeEnv:
    made = make("maze")
    assert isinstance(made, MazeEnv)
    return made


def test_catalogue_is_agentgyms_25_games(env: MazeEnv) -> None:
    assert env.splits() == {"train": 20, "test": 5} and env.heldout_splits == ("test",)
    assert env.task_ids("test") == ["maze-0", "maze-5", "maze-10", "maze-15", "maze-20"]
    assert env.describe_task("maze-0") == {"start": [1, 1], "goal": [8, 6], "shortest": 12}
    assert env.describe_task("maze-18") == {"start": [7, 6], "goal": [8, 6], "shortest": 1}
    for bad in ("maze-25", "maze-07", "maze--1", "maze-", "wordle-1"):
        with pytest.raises(UnknownTask):
            env.reset(task_id=bad)


def test_the_expert_walks_a_shortest_path_on_every_game(env: MazeEnv) -> None:
    for task_id in [*env.task_ids("train"), *env.task_ids("test")]:
        env.reset(task_id=task_id)
        while not env.done:
            action = env.expert_action()
            assert action is not None
            result = env.step(action)
        assert (result.observation, result.reward) == ("Success\n", 1.0)
        assert env.steps == env.describe_task(task_id)["shortest"]


def test_fifty_moves_without_the_goal_fail_the_next_step(env: MazeEnv) -> None:
    env.reset(task_id="maze-0")
    for _ in range(50):
        assert env.step("move up").done is False  # a wall: no move, no penalty
    failed = env.step("move right")
    assert (failed.observation, failed.reward, failed.done, failed.truncated) == ("Failure\n", -1.0, True, False)


def test_routes_refuse_bad_input_with_json_errors() -> None:
    with serve("maze") as c:
        assert c.post("/sessions", json={"task_id": "maze-25"}).status_code == 404
        sid = c.post("/create").json()["id"]
        for body, status in (({"game": 25}, 404), ({"game": -1}, 422), ({"game": "three"}, 422)):
            r = c.post("/reset", json={"id": sid, **body})
            assert r.status_code == status and "error" in r.json(), body
        c.post("/reset", json={"id": sid, "game": 18})
        assert c.get(f"/available_actions?id={sid}").json() == ["move left", "move right", "move up", "move down"]
        assert c.post("/step", json={"id": sid, "action": "jump"}).json()["done"] is False
