"""The alfworld env: catalogue, episodes, rewards, the 50-step cap, aliases, replay, HTTP."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from coevo.config import ServerConfig
from coevo.envs.alfworld.env import AlfWorldEnv
from coevo.envs.base import EpisodeFinished, UnknownSplit, UnknownTask
from coevo.envs.registry import make
from coevo.server import create_app

SMALL = {"train_size": 40, "valid_seen_size": 10, "valid_unseen_size": 10, "valid_train_size": 10}


def test_registered_with_alfworld_sizes():
    env = make("alfworld")
    assert isinstance(env, AlfWorldEnv)
    assert env.splits() == {"train": 3553, "valid_seen": 140, "valid_unseen": 134, "valid_train": 200}
    assert env.task_ids("valid_unseen", 130) == [f"valid_unseen-{i}" for i in range(130, 134)]
    assert env.split_of("train-3552") == "train"
    for bad in ("train-3553", "test-1", "nonsense"):
        with pytest.raises(UnknownTask):
            env.split_of(bad)
    with pytest.raises(UnknownSplit):
        env.task_ids("test")
    assert env.describe_task("valid_unseen-0") == {
        "task_type": "pick_clean_then_place_in_recep",
        "source": "generated",
        "floorplans": "unseen",
    }
    assert env.describe_task("valid_train-199")["floorplans"] == "seen"


def test_expert_episode_wins_with_reward_one():
    env = make("alfworld", **SMALL)
    for task_id in env.task_ids("valid_seen"):
        reset = env.reset(task_id=task_id)
        assert reset.observation.startswith("-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room.")
        assert reset.observation.endswith(f"Your task is to: {reset.info['task']}")
        assert "look" in reset.info["available_actions"] and reset.info["won"] is False
        rewards = []
        while True:
            turn = env.expert_turn()
            assert turn is not None
            assert turn.action in env._commands
            step = env.step(turn.action)
            rewards.append(step.reward)
            assert step.info["admissible"] and step.info["available_actions"] == sorted(step.info["available_actions"])
            if step.done:
                break
        assert rewards[-1] == 1.0 and set(rewards[:-1]) <= {0.0} and step.info["won"]
        assert env.expert_action() is None
        with pytest.raises(EpisodeFinished):
            env.step("look")


def test_nothing_happens_and_the_step_cap():
    env = make("alfworld", **SMALL)
    env.reset(task_id="train-0")
    for _ in range(49):
        step = env.step("dance")
        assert step.observation == "Nothing happens." and not step.done and not step.truncated
        assert step.info["admissible"] is False
    last = env.step("look")
    assert last.truncated and not last.done and last.reward == 0.0


def test_put_aliases_only_when_asked():
    exact = make("alfworld", **SMALL)  # the default is the real engine's behaviour
    lenient = make("alfworld", aliases="true", **SMALL)
    for env in (exact, lenient):
        env.reset(task_id="gen-3?task_type=pick_and_place_simple")
        plan = []
        while (turn := env.expert_turn()) is not None:
            action = turn.action
            if action.startswith("move "):
                obj, _, recep = action[len("move ") :].partition(" to ")
                action = f"put {obj} in/on {recep}"
            plan.append(env.step(action))
            if plan[-1].done or not plan[-1].info["admissible"]:
                break
        won = plan[-1].done
        assert won == (env is lenient)
        if env is exact:
            assert plan[-1].observation == "Nothing happens."


def test_legacy_dialect_option():
    env = make("alfworld", dialect="2.1.1", **SMALL)
    reset = env.reset(task_id="train-1")
    assert "help" not in reset.info["available_actions"] and reset.info["dialect"] == "2.1.1"
    step = env.step(env.expert_action())
    assert step.observation.startswith("You arrive at loc ")
    with pytest.raises(ValueError):
        make("alfworld", dialect="9.9")


def test_snapshot_restore_and_seeds():
    env = make("alfworld", **SMALL)
    first = env.reset(seed=5, split="train")
    again = make("alfworld", **SMALL).reset(seed=5, split="train")
    assert first.observation == again.observation and first.info["task_id"] == again.info["task_id"]
    for _ in range(3):
        env.step(env.expert_action())
    snap = env.snapshot()
    twin = make("alfworld", **SMALL)
    restored = twin.restore(snap)
    assert twin.state.contents == env.state.contents and twin.steps == env.steps == 3
    assert restored.info["available_actions"] == sorted(env._commands)


def test_knob_addressed_games():
    env = make("alfworld", knobs="max_receptacles=4&distractors=1", **SMALL)
    reset = env.reset(task_id="gen-8?task_type=pick_two_obj_and_place")
    assert env.split == "custom" and reset.info["task_type"] == "pick_two_obj_and_place"
    assert len(env.game.rec_names) <= 4
    with pytest.raises(UnknownTask):
        env.reset(task_id="gen-8?task_type=fly")
    with pytest.raises(UnknownTask):
        env.reset(task_id="gen-8?task_type=pick_heat_then_place_in_recep&room=Bedroom")


def test_session_state_is_small_and_games_are_shared():
    env_a, env_b = make("alfworld", **SMALL), make("alfworld", **SMALL)
    env_a.reset(task_id="train-7")
    env_b.reset(task_id="train-7")
    assert env_a.game is env_b.game  # one compiled game per process
    env_a.step(env_a.expert_action())
    assert env_a.state.contents != env_b.state.contents or env_a.state.loc != env_b.state.loc


def test_real_games_need_data(monkeypatch, tmp_path):
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    with pytest.raises(ValueError):
        AlfWorldEnv.load_shared(games="alfworld")
    with pytest.raises(FileNotFoundError):
        AlfWorldEnv.load_shared(games="alfworld", data_path=str(tmp_path))


def test_over_http():
    app = create_app("alfworld", env_options=SMALL, config=ServerConfig(record=False))
    with TestClient(app) as client:
        info = client.get("/info").json()
        assert info["splits"] == {"train": 40, "valid_seen": 10, "valid_unseen": 10, "valid_train": 10}
        assert info["max_steps"] == 50
        created = client.post("/sessions", json={"task_id": "valid_unseen-2"}).json()
        sid = created["session_id"]
        done, reward = False, 0.0
        while not done:
            action = client.get(f"/sessions/{sid}/expert").json()["action"]
            step = client.post(f"/sessions/{sid}/step", json={"action": action}).json()
            done, reward = step["done"], step["reward"]
        assert reward == 1.0
