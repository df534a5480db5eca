"""The native engine against ALFWorld's rules and text, on a hand-made kitchen."""

from __future__ import annotations

import pytest

from coevo.envs.alfworld import engine
from coevo.envs.alfworld.dialects import HELP_TEXT
from coevo.envs.alfworld.engine import NOTHING_HAPPENS, State
from coevo.envs.alfworld.scoring import Goal

from .scenes import compiled

SIMPLE = Goal("pick_and_place_simple", "Apple", "Fridge")


def play(game, *commands):
    state = State(game)
    outs = [engine.step(game, state, c) for c in commands]
    return state, outs


def test_intro_lists_receptacles_by_id_and_states_the_task():
    game = compiled(SIMPLE, task="put a apple in fridge.")
    text = engine.intro(game, State(game))
    assert text == (
        "-= Welcome to TextWorld, ALFRED! =-\n\n"
        "You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 1, "
        "a desk 1, a fridge 1, a microwave 1, a sinkbasin 1, a stoveburner 2, and a stoveburner 1.\n\n"
        "Your task is to: put a apple in fridge."
    )


def test_arrival_text_by_dialect():
    new = compiled(SIMPLE)
    _, (out,) = play(new, "go to countertop 1")
    assert (
        out.feedback == "You arrive at countertop 1. On the countertop 1, you see a apple 2, a apple 1, and a knife 1."
    )
    old = compiled(SIMPLE, "2.1.1")
    _, (out,) = play(old, "go to countertop 1")
    assert out.feedback == "You arrive at loc 7. On the countertop 1, you see a apple 2, a apple 1, and a knife 1."


def test_open_close_and_closed_receptacles():
    game = compiled(SIMPLE)
    state, outs = play(
        game, "go to cabinet 1", "take mug 1 from cabinet 1", "open cabinet 1", "close cabinet 1", "close cabinet 1"
    )
    assert outs[0].feedback == "You arrive at cabinet 1. The cabinet 1 is closed."
    assert outs[1].feedback == NOTHING_HAPPENS and not outs[1].admissible
    assert outs[2].feedback == "You open the cabinet 1. The cabinet 1 is open. In it, you see a mug 1."
    assert outs[3].feedback == "You close the cabinet 1."
    assert outs[4].feedback == NOTHING_HAPPENS


def test_take_put_and_inventory():
    game = compiled(SIMPLE)
    state, outs = play(
        game,
        "go to countertop 1",
        "take apple 1 from countertop 1",
        "take knife 1 from countertop 1",
        "inventory",
        "examine apple 1",
        "go to fridge 1",
        "move apple 1 to fridge 1",
        "open fridge 1",
        "move apple 1 to fridge 1",
        "inventory",
    )
    assert outs[1].feedback == "You pick up the apple 1 from the countertop 1."
    assert outs[2].feedback == NOTHING_HAPPENS  # hands full
    assert outs[3].feedback == "You are carrying: a apple 1."
    assert outs[4].feedback == "There's nothing special about apple 1."
    assert outs[6].feedback == NOTHING_HAPPENS  # the fridge is closed
    assert outs[7].feedback == "You open the fridge 1. The fridge 1 is open. In it, you see a egg 1."
    assert outs[8].feedback == "You move the apple 1 to the fridge 1." and outs[8].won
    assert outs[9].feedback == "You are not carrying anything."


def test_legacy_put_command():
    game = compiled(SIMPLE, "2.1.1")
    _, outs = play(
        game,
        "go to countertop 1",
        "take apple 1 from countertop 1",
        "go to sinkbasin 1",
        "move apple 1 to sinkbasin 1",
        "put apple 1 in/on sinkbasin 1",
        "help",
    )
    assert outs[3].feedback == NOTHING_HAPPENS
    assert outs[4].feedback == "You put the apple 1 in/on the sinkbasin 1."
    assert outs[5].feedback == NOTHING_HAPPENS  # no help in 2.1.1


def test_put_requires_the_receptacle_to_fit_the_object():
    game = compiled(SIMPLE)
    state, outs = play(game, "go to countertop 1", "take apple 1 from countertop 1", "go to stoveburner 1")
    assert not any(c.startswith("move") for c in engine.admissible(game, state))
    assert engine.step(game, state, "move apple 1 to stoveburner 1").feedback == NOTHING_HAPPENS


def test_admissible_commands():
    game = compiled(SIMPLE)
    state = State(game)
    assert engine.admissible(game, state) == sorted(
        [
            "go to cabinet 1",
            "go to countertop 1",
            "go to desk 1",
            "go to fridge 1",
            "go to microwave 1",
            "go to sinkbasin 1",
            "go to stoveburner 1",
            "go to stoveburner 2",
            "help",
            "inventory",
            "look",
        ]
    )
    engine.step(game, state, "go to stoveburner 2")
    commands = engine.admissible(game, state)
    # No "go to" a receptacle at the agent's own location (Fast Downward drops no-op operators);
    # objects are examined only once held.
    assert "go to stoveburner 1" not in commands and "go to stoveburner 2" not in commands
    assert {"examine stoveburner 1", "examine stoveburner 2", "take pan 1 from stoveburner 2"} <= set(commands)
    assert "examine pan 1" not in commands
    engine.step(game, state, "take pan 1 from stoveburner 2")
    commands = engine.admissible(game, state)
    assert "examine pan 1" in commands
    assert {"move pan 1 to stoveburner 1", "move pan 1 to stoveburner 2"} <= set(commands)
    assert commands == sorted(commands)


def test_commands_are_exact():
    game = compiled(SIMPLE)
    state = State(game)
    assert engine.step(game, state, "  go to desk 1 ").admissible  # surrounding spaces are stripped
    for wrong in ("Go to desk 1", "go to desk1", "go to desk 1.", "goto fridge 1", ""):
        assert engine.step(game, state, wrong).feedback == NOTHING_HAPPENS


def test_look_and_objects_next_to_the_agent():
    game = compiled(SIMPLE)
    state = State(game)
    assert engine.step(game, state, "look").feedback == (
        "You are in the middle of a room. Looking quickly around you, you see nothing."
    )
    engine.step(game, state, "go to stoveburner 2")
    assert engine.step(game, state, "look").feedback == (
        "You are facing the stoveburner 2, and stoveburner 1. Next to it, you see nothing."
    )
    # TextWorld keeps not_inreceptacle(pan, burner 2) after the pickup: once the pan is on the
    # other burner at the same spot, look lists it "next to" the agent.
    engine.step(game, state, "take pan 1 from stoveburner 2")
    engine.step(game, state, "move pan 1 to stoveburner 1")
    assert engine.step(game, state, "look").feedback == (
        "You are facing the stoveburner 2, and stoveburner 1. Next to it, you see a pan 1."
    )
    engine.step(game, state, "take pan 1 from stoveburner 1")
    engine.step(game, state, "move pan 1 to stoveburner 2")
    assert engine.step(game, state, "look").feedback.endswith("Next to it, you see a pan 1.")


def test_heat_cool_clean_and_examine():
    game = compiled(Goal("pick_heat_then_place_in_recep", "Egg", "CounterTop"))
    state, outs = play(
        game,
        "go to fridge 1",
        "open fridge 1",
        "take egg 1 from fridge 1",
        "examine egg 1",
        "go to microwave 1",
        "heat egg 1 with microwave 1",
        "examine egg 1",
        "go to sinkbasin 1",
        "clean egg 1 with sinkbasin 1",
        "examine egg 1",
        "go to fridge 1",
        "cool egg 1 with fridge 1",
        "examine egg 1",
    )
    texts = [o.feedback for o in outs]
    assert texts[3] == "This is a cold egg 1."
    assert texts[5] == "You heat the egg 1 using the microwave 1."  # a closed microwave heats
    assert texts[6] == "This is a hot egg 1."  # heating clears cold
    assert texts[8] == "You clean the egg 1 using the sinkbasin 1."
    assert texts[9] == "This is a hot and clean egg 1."
    assert texts[11] == "You cool the egg 1 using the fridge 1."
    assert texts[12] == "This is a cool and clean egg 1."  # cooling clears hot


def test_receptacle_objects_and_slicing():
    game = compiled(SIMPLE)
    state, outs = play(
        game,
        "go to cabinet 1",
        "open cabinet 1",
        "take mug 1 from cabinet 1",
        "examine mug 1",
        "go to microwave 1",
        "heat mug 1 with microwave 1",
        "examine mug 1",
    )
    assert outs[3].feedback == "This is a normal mug 1. In it, you see nothing."
    assert outs[6].feedback == "This is a normal mug 1. In it, you see nothing."
    state, outs = play(
        game,
        "go to countertop 1",
        "take knife 1 from countertop 1",
        "slice apple 2 with knife 1",
        "move knife 1 to countertop 1",
        "take apple 2 from countertop 1",
        "examine apple 2",
    )
    assert outs[2].feedback == "You sliced the apple 2 with the knife 1."
    assert outs[5].feedback == "This is a sliced apple 2."


def test_help_text():
    game = compiled(SIMPLE)
    _, (out,) = play(game, "help")
    assert out.feedback == HELP_TEXT and HELP_TEXT.startswith("Available commands:\n  look:")


@pytest.mark.parametrize(
    "goal,winning",
    [
        (
            Goal("pick_and_place_simple", "Book", "CounterTop"),
            ["go to desk 1", "take book 1 from desk 1", "go to countertop 1", "move book 1 to countertop 1"],
        ),
        (
            Goal("pick_clean_then_place_in_recep", "Mug", "CounterTop"),
            [
                "go to cabinet 1",
                "open cabinet 1",
                "take mug 1 from cabinet 1",
                "go to countertop 1",
                "move mug 1 to countertop 1",
                "take mug 1 from countertop 1",
                "go to sinkbasin 1",
                "clean mug 1 with sinkbasin 1",
                "go to countertop 1",
                "move mug 1 to countertop 1",
            ],
        ),
        (
            Goal("pick_heat_then_place_in_recep", "Apple", "SinkBasin"),
            [
                "go to countertop 1",
                "take apple 2 from countertop 1",
                "go to sinkbasin 1",
                "move apple 2 to sinkbasin 1",
                "take apple 2 from sinkbasin 1",
                "go to microwave 1",
                "heat apple 2 with microwave 1",
                "go to sinkbasin 1",
                "move apple 2 to sinkbasin 1",
            ],
        ),
        (
            Goal("pick_cool_then_place_in_recep", "Pan", "CounterTop"),
            [
                "go to stoveburner 1",
                "take pan 1 from stoveburner 2",
                "go to fridge 1",
                "cool pan 1 with fridge 1",
                "go to countertop 1",
                "move pan 1 to countertop 1",
            ],
        ),
        (
            Goal("pick_two_obj_and_place", "Apple", "SinkBasin"),
            [
                "go to countertop 1",
                "take apple 1 from countertop 1",
                "go to sinkbasin 1",
                "move apple 1 to sinkbasin 1",
                "go to countertop 1",
                "take apple 2 from countertop 1",
                "go to sinkbasin 1",
                "move apple 2 to sinkbasin 1",
            ],
        ),
        (
            Goal("look_at_obj_in_light", "Apple", toggle_type="DeskLamp"),
            ["go to countertop 1", "take apple 1 from countertop 1", "go to desk 1", "use desklamp 1"],
        ),
    ],
)
def test_each_goal_is_won_exactly_at_the_last_step(goal, winning):
    game = compiled(goal)
    state = State(game)
    for i, command in enumerate(winning):
        out = engine.step(game, state, command)
        assert out.admissible, command
        assert out.won == (i == len(winning) - 1), (i, command)


def test_look_at_needs_the_lamp_here_and_on_while_holding():
    game = compiled(Goal("look_at_obj_in_light", "Book", toggle_type="DeskLamp"))
    state, outs = play(game, "go to desk 1", "use desklamp 1", "take book 1 from desk 1")
    assert outs[1].feedback == "You turn on the desklamp 1." and not outs[1].won
    assert outs[2].won
    out = engine.step(game, state, "go to countertop 1")
    assert not out.won  # the lit lamp is elsewhere now
    assert engine.step(game, state, "go to desk 1").won


def test_state_copy_is_independent():
    game = compiled(SIMPLE)
    state = State(game)
    engine.step(game, state, "go to countertop 1")
    twin = state.copy()
    engine.step(game, twin, "take apple 1 from countertop 1")
    assert state.held == 0 and twin.held != 0
    assert state.contents != twin.contents
