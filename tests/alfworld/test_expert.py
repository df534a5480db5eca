"""The expert: wins every generated game from the start and from wherever random play left it."""

from __future__ import annotations

import random

import pytest

from coevo.envs.alfworld import engine, expert, scoring
from coevo.envs.alfworld.dialects import dialect
from coevo.envs.alfworld.game import compile_game
from coevo.envs.alfworld.generator import Knobs, generate
from coevo.envs.alfworld.scoring import TASK_TYPES, Goal

from .scenes import compiled


@pytest.mark.parametrize("task_type", TASK_TYPES)
def test_expert_recovers_from_random_play(task_type):
    rng = random.Random(task_type)
    for i in range(25):
        knobs = Knobs(
            task_type=task_type,
            max_receptacles=rng.choice([None, 5, 9]),
            distractors=rng.choice([None, 0, 3]),
            closed=rng.random(),
        )
        game = compile_game(generate(knobs, 900 + i), dialect(rng.choice(["2.1.1", "2.1.2"])))
        state = engine.State(game)
        for _ in range(rng.randrange(30)):
            engine.step(game, state, rng.choice(engine.admissible(game, state)))
        if scoring.won(game, state):
            continue
        turns = expert.plan(game, state)
        for turn in turns:
            assert engine.step(game, state, turn.action).admissible, turn.action
        assert scoring.won(game, state)


def test_turns_read_like_react():
    game = compiled(Goal("pick_heat_then_place_in_recep", "Egg", "CounterTop"))
    state = engine.State(game)
    turns = expert.plan(game, state)
    assert [t.action for t in turns] == [
        "go to fridge 1",
        "open fridge 1",
        "take egg 1 from fridge 1",
        "go to microwave 1",
        "heat egg 1 with microwave 1",
        "go to countertop 1",
        "move egg 1 to countertop 1",
    ]
    assert turns[0].thought.startswith(
        "To solve the task, I need to find and take a egg, then heat it with microwave, then put it in countertop."
    )
    assert turns[1].react() == "Thought: The fridge 1 is closed, so I open it.\nAction: open fridge 1"
    later = expert.next_turn(game, state)
    assert later is not None and not later.thought.startswith("To solve")
    # Holding something useless: put it down first.
    engine.step(game, state, "go to desk 1")
    engine.step(game, state, "take book 1 from desk 1")
    first = expert.plan(game, state)[0]
    assert first.action == "move book 1 to desk 1"


def test_no_plan_when_the_goal_is_impossible():
    game = compiled(Goal("pick_and_place_simple", "Apple", "Toilet"))
    assert expert.next_turn(game, engine.State(game)) is None
    with pytest.raises(expert.NoPlan):
        expert.plan(game, engine.State(game))


def test_agenttraj_records():
    from coevo.envs.alfworld.trajectories import expert_record
    from coevo.envs.registry import make

    env = make("alfworld", train_size=12)
    record = expert_record(env, "train-5")
    conv = record["conversations"]
    assert record["reward"] == 1.0 and record["item_id"] == "alfworld_train-5"
    assert conv[0]["from"] == "human" and "move <object> to <receptacle>" in conv[0]["value"]
    assert conv[2]["value"].startswith("-= Welcome to TextWorld, ALFRED! =-")
    gpt = [c for c in conv[3:] if c["from"] == "gpt"]
    assert gpt and all(c["value"].startswith("Thought: ") and "\nAction: " in c["value"] for c in gpt)
    assert [c["from"] for c in conv[3:]] == ["gpt", "human"] * (len(gpt) - 1) + ["gpt"]
