"""PDDL problems and game files: goals of the six types, round trips, dialect detection, naming."""

from __future__ import annotations

import pytest

from coevo.envs.alfworld.dialects import DIALECTS, UnknownDialect, detect_dialect, dialect
from coevo.envs.alfworld.game import compile_game
from coevo.envs.alfworld.gamefile import BadGameFile, parse_game_data
from coevo.envs.alfworld.generator import Knobs, generate
from coevo.envs.alfworld.names import alfred_id, demangle, display_names, location_id, mangle
from coevo.envs.alfworld.problem import UnsupportedProblem, read_problem, write_problem
from coevo.envs.alfworld.scoring import TASK_TYPES, Goal, UnsupportedGoal, goal_pddl, parse_goal
from coevo.envs.alfworld.sexpr import SexprError, parse_sexpr
from coevo.envs.alfworld.tables import tables

GOALS = [
    Goal("pick_and_place_simple", "KeyChain", "Sofa"),
    Goal("look_at_obj_in_light", "AlarmClock", toggle_type="DeskLamp"),
    Goal("pick_clean_then_place_in_recep", "ButterKnife", "CounterTop"),
    Goal("pick_heat_then_place_in_recep", "Mug", "CoffeeMachine"),
    Goal("pick_cool_then_place_in_recep", "Apple", "DiningTable"),
    Goal("pick_two_obj_and_place", "CellPhone", "Drawer"),
]

# ALFWorld's own goal block for a clean task, as its game files write it.
ALFWORLD_CLEAN_GOAL = """
        (:goal
            (and
                (exists (?r - receptacle)
                    (exists (?o - object)
                        (and
                            (cleanable ?o)
                            (objectType ?o ButterKnifeType)
                            (receptacleType ?r CounterTopType)
                            (isClean ?o)
                            (inReceptacle ?o ?r)
                        )
                    )
                )
            )
        )
"""


def test_names_follow_the_demangler():
    ids = [mangle(alfred_id("Cabinet", x, 0.5, -2.2)).lower() for x in (0.68, -1.18, 0.72)]
    ids.append(mangle(alfred_id("Sink", 0.16, 0.82, -1.8, "SinkBasin")).lower())
    ids.append(mangle(location_id(-1.25, 0.5, 270, -30)).lower())
    names = display_names(ids)
    # Sorted ids, numbers handed out from the highest: "_minus_" sorts before "_plus_".
    assert [names[i] for i in sorted(ids[:3])] == ["cabinet 3", "cabinet 2", "cabinet 1"]
    assert names[ids[3]] == "sinkbasin 1"
    assert names[ids[4]] == "loc 1"
    assert ids[4] == "loc_bar__minus_5_bar_2_bar_3_bar__minus_30"
    assert (
        demangle("cabinet_bar__plus_00_dot_68_bar__plus_00_dot_50_bar__minus_02_dot_20")
        == "cabinet|+00.68|+00.50|-02.20"
    )
    assert display_names(["agent1"]) == {"agent1": "agent1 "}
    assert alfred_id("Apple", 0.0, -0.004, 1.5) == "Apple|00.00|00.00|+01.50"


@pytest.mark.parametrize("goal", GOALS, ids=lambda g: g.task_type)
def test_goal_pddl_round_trips(goal):
    parsed = parse_sexpr(goal_pddl(goal))[0]
    assert parsed[0] == ":goal"
    assert parse_goal(parsed[1], tables().type_names) == goal


def test_alfworld_goal_text_is_read():
    parsed = parse_sexpr(ALFWORLD_CLEAN_GOAL)[0]
    assert parse_goal(parsed[1], tables().type_names) == GOALS[2]


@pytest.mark.parametrize(
    "text",
    [
        # ALFWorld's sliced and "close everything" variants are outside the six task types.
        ALFWORLD_CLEAN_GOAL.replace("(cleanable ?o)", "(sliceable ?o) (isSliced ?o) (cleanable ?o)"),
        "(:goal (and (exists (?r - receptacle) (exists (?o - object) (and (inReceptacle ?o ?r)"
        " (objectType ?o AppleType) (receptacleType ?r FridgeType)))) (forall (?re - receptacle) (not (opened ?re)))))",
        "(:goal (and (holds ?a ?o)))",
    ],
)
def test_other_goals_are_refused(text):
    with pytest.raises((UnsupportedGoal, SexprError)):
        parse_goal(parse_sexpr(text)[0][1], tables().type_names)


def test_goal_sentences():
    templates = tables().goal_templates
    assert GOALS[2].describe(templates, 0) == "put a clean butterknife in countertop"
    assert GOALS[1].describe(templates, 1) == "examine the alarmclock with the desklamp"
    assert GOALS[5].describe(templates, 1) == "find two cellphone and put them in drawer"
    with pytest.raises(ValueError):
        Goal("look_at_obj_in_light", "Book", "Desk")
    with pytest.raises(ValueError):
        Goal("pick_up_everything", "Book", "Desk")


@pytest.mark.parametrize("task_type", TASK_TYPES)
def test_generated_problems_round_trip(task_type):
    scene = generate(Knobs(task_type=task_type), 11)
    text = write_problem(scene)
    again = read_problem(text, scene.task, tables().type_names)
    assert again.goal == scene.goal
    assert again.agent_location == scene.agent_location
    assert again.receptacles == scene.receptacles
    assert again.objects == scene.objects
    assert again.can_contain == scene.can_contain
    assert compile_game(again, dialect("2.1.2")) == compile_game(scene, dialect("2.1.2"))


def test_problem_reader_refuses_what_the_engine_cannot_reproduce():
    scene = generate(Knobs(task_type="pick_and_place_simple"), 3)
    text = write_problem(scene)
    rid = next(iter(scene.receptacles))
    with pytest.raises(UnsupportedProblem):
        read_problem(
            text.replace("(:init", f"(:init (receptacleAtLocation {rid} loc_elsewhere)"),
            scene.task,
            tables().type_names,
        )
    with pytest.raises(UnsupportedProblem):
        read_problem(text.replace("(:init", "(:init (teleports agent1)"), scene.task, tables().type_names)
    with pytest.raises(UnsupportedProblem):
        read_problem("(define (domain alfred))", "", tables().type_names)
    with pytest.raises(SexprError):
        parse_sexpr("(define (problem x)")


def _fake_game(scene, put: str, arrive: str, help_action: bool) -> dict:
    grammar = (
        f'"rhs": "Your task is to: {scene.task}"\n"rhs": "You arrive at {arrive}. #x#"\n'
        f'template :: "{put}";\n' + ("action help {\n" if help_action else "")
    )
    domain = "(define (domain alfred)\n" + ("(:action help\n" if help_action else "") + ")"
    return {"pddl_domain": domain, "grammar": grammar, "pddl_problem": write_problem(scene), "solvable": True}


def test_game_files_declare_their_dialect_and_task():
    scene = generate(Knobs(task_type="pick_heat_then_place_in_recep"), 5)
    new = parse_game_data(_fake_game(scene, "move {o} to {r}", "{r.name}", True))
    old = parse_game_data(_fake_game(scene, "put {o} in/on {r}", "{lend.name}", False))
    assert new.dialect == DIALECTS["2.1.2"] and old.dialect == DIALECTS["2.1.1"]
    assert new.scene.task == scene.task and new.solvable is True
    with pytest.raises(UnknownDialect):
        parse_game_data(_fake_game(scene, "move {o} to {r}", "{lend.name}", True))
    with pytest.raises(BadGameFile):
        parse_game_data({"grammar": ""})
    assert (
        detect_dialect('template :: "move {o} to {r}" "You arrive at {r.name}. action help', "(:action help")
        == DIALECTS["2.1.2"]
    )
