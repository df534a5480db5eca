"""TextCraft's catalogue, bad input, the expert and the served routes."""

from __future__ import annotations

import pytest

from coevo.envs.base import UnknownTask
from coevo.envs.registry import make
from coevo.envs.textcraft import expert
from coevo.envs.textcraft.env import TextCraftEnv
from tests.server.conftest import serve


@pytest.fixture(scope="module")
def env() -> TextCraftEnv:
    made = make("textcraft")
    assert isinstance(made, TextCraftEnv)
    return made


def test_catalogue_is_agentgyms_544_tasks_with_every_fifth_held_out(env: TextCraftEnv) -> None:
    assert env.splits() == {"train": 435, "test": 109}
    assert env.task_ids("test", 0, 3) == ["textcraft-0", "textcraft-5", "textcraft-10"]
    assert env.task_ids("train", 0, 2) == ["textcraft-1", "textcraft-2"]
    assert env.split_of("textcraft-543") == "train"
    # AgentGym orders its tasks by recipe depth: shallow first, netherite block (depth 3) late.
    assert env.describe_task("textcraft-0") == {"goal": "minecraft:acacia_planks", "depth": 1, "agentgym_index": 0}
    depths = [env.describe_task(f"textcraft-{i}")["depth"] for i in range(544)]
    assert depths == sorted(depths) and set(depths) == {1, 2, 3, 4}


@pytest.mark.parametrize(
    "task_id", ["textcraft-544", "textcraft--1", "textcraft-01", "textcraft-", "craft-1", "textcraft-١"]
)
def test_unknown_task_ids_are_refused(env: TextCraftEnv, task_id: str) -> None:
    with pytest.raises(UnknownTask):
        env.reset(task_id=task_id)


def test_a_rejected_command_is_an_observation_and_the_episode_goes_on(env: TextCraftEnv) -> None:
    env.reset(task_id="textcraft-2")
    result = env.step("fly to the moon")
    assert (result.observation, result.reward, result.done, result.info["valid"]) == (
        "Could not execute fly to the moon",
        0.0,
        False,
        False,
    )
    assert env.step("get 1 nether star").info["valid"] is True


def test_the_expert_solves_every_task_within_the_step_cap(env: TextCraftEnv) -> None:
    longest = 0
    for index in range(544):
        env.reset(task_id=f"textcraft-{index}")
        while not env.done:
            action = env.expert_action()
            assert action is not None, index
            result = env.step(action)
        assert result.reward == 1.0 and not result.truncated, index
        longest = max(longest, env.steps)
    assert longest <= env.max_steps


def test_the_expert_recovers_from_a_detour(env: TextCraftEnv) -> None:
    """It plans from the inventory at every call: what an agent already made is reused, what it
    spent is made again."""
    env.reset(task_id="textcraft-2")  # a beacon: 1 nether star, 5 glass, 3 obsidian
    env.step("get 7 glass")
    assert env.expert_action() == "get 1 nether star"
    assert expert.plan(env.shared.planner, "minecraft:beacon", {"minecraft:glass": 7}) == [
        "get 1 nether star",
        "get 3 obsidian",
        "craft 1 beacon using 1 nether star, 5 glass, 3 obsidian",
    ]


def test_native_and_agentgym_routes_refuse_bad_input_with_json_errors() -> None:
    with serve("textcraft") as c:
        assert c.post("/sessions", json={"task_id": "textcraft-544"}).status_code == 404
        created = c.post("/create", json={}).json()
        sid = created["id"]
        assert created["observation"].startswith("Crafting commands:\n")
        for body, status in (({"data_idx": 544}, 404), ({"data_idx": -1}, 422), ({"data_idx": "x"}, 422)):
            r = c.post("/reset", json={"id": sid, **body})
            assert r.status_code == status and "error" in r.json(), body
        ok = c.post("/reset", json={"id": sid, "data_idx": 0}).json()
        assert (
            ok["observation"]
            == "Crafting commands:\ncraft 4 acacia planks using 1 acacia logs\n\nGoal: craft acacia planks."
        )
        step = c.post("/step", json={"id": sid, "action": "craft"}).json()
        assert step["observation"] == "Could not execute craft" and step["done"] is False
