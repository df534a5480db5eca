"""The babyai env in process: AgentGym's item mapping, the catalogue, the text rules for bad
actions, the end rule, the expert and replay."""

from __future__ import annotations

import pytest

from coevo.envs.babyai import scoring
from coevo.envs.babyai.env import BabyAIEnv
from coevo.envs.babyai.game import goal_text
from coevo.envs.babyai.tasks import catalogue, parse_task_id
from coevo.envs.base import EpisodeFinished, UnknownTask


@pytest.fixture
def env() -> BabyAIEnv:
    return BabyAIEnv()


def test_items_map_to_level_and_seed_as_agentgym_does() -> None:
    cat = catalogue()
    assert len(cat.levels) == 40
    assert cat.task(0).level == "BabyAI-GoToRedBallGrey-v0" and cat.task(0).seed == 0
    assert cat.task(39).level == "BabyAI-BossLevelNoUnlock-v0"
    assert (cat.task(81).level, cat.task(81).seed) == ("BabyAI-GoToRedBall-v0", 2)
    assert cat.split_of(89) == "test" and cat.split_of(90) == "train"
    with pytest.raises(UnknownTask):
        cat.split_of(900)


def test_catalogue_and_task_ids(env: BabyAIEnv) -> None:
    assert env.splits() == {"test": 90, "train": 810}
    assert env.task_ids("test", 88) == ["babyai_88", "babyai_89"]
    assert env.task_ids("train", 0, 2) == ["babyai_90", "babyai_91"]
    assert env.split_of("babyai_5") == "test"
    for bad in ("babyai_900", "babyai_-1", "babyai_x", "5"):
        with pytest.raises(UnknownTask):
            env.split_of(bad)
    with pytest.raises(UnknownTask):
        parse_task_id("babyai_")


def test_goal_text_joins_sequences_with_and() -> None:
    assert goal_text("open the red door, then pick up a key") == "open the red door, and pick up a key"
    assert goal_text("go to the ball after you open a door") == "go to the ball and open a door"


def test_end_rule_needs_a_reward_above_one_half() -> None:
    assert scoring.episode_done(True, 0.51)
    assert not scoring.episode_done(True, 0.5)
    assert not scoring.episode_done(False, 0.9)


def test_bad_actions_are_observations_and_change_nothing(env: BabyAIEnv) -> None:
    first = env.reset(task_id="babyai_1")
    listing = first.observation[first.observation.index("\nAvailable actions: [") :]
    for action, text in [
        ("", "No change in state."),
        ("fly", "The action is not recognized. Please check valid actions."),
        ("drop", "You cannot drop the object, as you are not carrying anything."),
        ("Please CHECK", "You can take the following actions: turn left, turn right, move forward"),
    ]:
        result = env.step(action)
        assert result.observation.startswith(text)
        assert result.observation.endswith(listing) and result.reward == 0.0 and not result.done
    assert env.game is not None and env.game.moves == []


def test_macro_action_walks_the_path_and_finishes_the_goal(env: BabyAIEnv) -> None:
    env.reset(task_id="babyai_1")  # go to the red ball; it is in view
    result = env.step("go to red ball 1")
    assert result.done and result.reward > 0.5 and result.info["score"] == result.reward
    assert "\n The task is completed." in result.observation
    assert env.game is not None and env.game.accomplished
    with pytest.raises(EpisodeFinished):
        env.step("turn left")


def test_expert_solves_the_first_levels_and_replay_restores_its_plan(env: BabyAIEnv) -> None:
    solved = 0
    for index in range(5):
        env.reset(task_id=f"babyai_{index}")
        while not env.done:
            action = env.expert_action()
            assert action is not None, index
            env.step(action)
        solved += env.game is not None and env.game.done
    assert solved == 5
    env.reset(task_id="babyai_7")
    env.step("turn left")
    env.step(env.expert_action() or "")
    state = env.snapshot()
    copy = BabyAIEnv(shared=env.shared)
    copy.restore(state)
    assert copy.expert_action() == env.expert_action()
    assert copy.step("move forward").observation == env.step("move forward").observation
