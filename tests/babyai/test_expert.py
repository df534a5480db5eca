"""BabyAI's expert: the bot played through AgentGym's macro actions, its adaptations to
AgentGym's action set, its reasons when it has no action, and its replay after a restore."""

from __future__ import annotations

import pytest

from coevo.envs.babyai.env import BabyAIEnv


@pytest.fixture
def env() -> BabyAIEnv:
    return BabyAIEnv()


def play(env: BabyAIEnv, task_id: str) -> list[str]:
    """The expert's actions on `task_id` until the end or until it has none."""
    env.reset(task_id=task_id)
    actions: list[str] = []
    while not env.done and (action := env.expert_action()) is not None:
        env.step(action)
        actions.append(action)
    return actions


def test_macro_actions_finish_a_level_longer_than_the_step_cap_in_low_level_moves(env: BabyAIEnv) -> None:
    actions = play(env, "babyai_31")  # KeyCorridorS6R3: hit the cap when the expert moved one step per action
    game = env.game
    assert game is not None and game.done and game.reward > 0.5
    low = sum(len(m) for m in game.moves)
    assert low > env.max_steps > len(actions)
    assert any(a.startswith(("go to ", "pickup ", "toggle and go through ", "go through ")) for a in actions)


def test_a_level_that_starts_carrying_the_object_to_place_is_solved(env: BabyAIEnv) -> None:
    play(env, "babyai_22")  # PutNextS7N4Carrying: minigrid's bot alone gives up here
    assert env.game is not None and env.game.done


def test_a_key_inside_a_box_is_explained(env: BabyAIEnv) -> None:
    play(env, "babyai_25")  # KeyInBox
    assert env.game is not None and not env.game.done
    assert env.expert_action() is None
    assert env._expert is not None and "inside a box" in (env._expert.failure or "")


def test_a_restored_session_gets_the_same_expert_actions(env: BabyAIEnv) -> None:
    """Restore replays the text actions without the expert; its bot must end up with the same
    plan, whether the actions were the expert's or not (a "turn left" of the agent's own)."""
    env.reset(task_id="babyai_47")  # GoToSeqS5R2: a sequence of goals, doors on the way
    compared = 0
    while not env.done:
        action = env.expert_action()
        assert action is not None
        copy = BabyAIEnv(shared=env.shared)
        copy.restore(env.snapshot())
        assert copy.expert_action() == action, f"after {env.actions}"
        env.step("turn left" if compared == 2 else action)
        compared += 1
    assert compared >= 5 and env.game is not None and env.game.done


def test_a_bot_that_plans_in_circles_is_stopped_and_explained(env: BabyAIEnv) -> None:
    """minigrid's bot alone hangs on UnlockToUnlock seed 4 (its explore subgoal pushes and pops
    the same go-next-to forever); the expert gives up with the reason instead of hanging."""
    play(env, "babyai_188")
    assert env.game is not None and not env.game.done
    assert env._expert is not None and "path searches for one move" in (env._expert.failure or "")
