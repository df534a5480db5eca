"""Generated games: deterministic, ALFRED's rules, every task winnable, knobs obeyed, splits."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from coevo.envs.alfworld import engine, expert, scoring
from coevo.envs.alfworld.dialects import dialect
from coevo.envs.alfworld.game import compile_game
from coevo.envs.alfworld.generator import APPLIANCE, MAX_EXPERT_STEPS, GenerationError, Knobs, generate
from coevo.envs.alfworld.problem import write_problem
from coevo.envs.alfworld.scoring import TASK_TYPES
from coevo.envs.alfworld.tables import tables
from coevo.envs.alfworld.tasks import (
    DEFAULT_SIZES,
    SEEN_FLOORPLANS,
    TEST_FLOORPLANS,
    TYPE_COUNTS,
    UNSEEN_FLOORPLANS,
    GeneratedCatalog,
    knobs_from,
    type_sequence,
)

NEW = dialect("2.1.2")


def test_same_knobs_and_seed_same_game():
    for seed in (0, 1, 2**40 + 7):
        a, b = generate(Knobs(), seed), generate(Knobs(), seed)
        assert write_problem(a) == write_problem(b) and a.task == b.task
    assert write_problem(generate(Knobs(), 0)) != write_problem(generate(Knobs(), 1))


@pytest.mark.parametrize("task_type", TASK_TYPES)
def test_games_follow_alfred_rules_and_are_winnable(task_type):
    t = tables()
    phrasings = set()
    for seed in range(12):
        scene = generate(Knobs(task_type=task_type), seed)
        goal = scene.goal
        plan = t.floorplans[f"FloorPlan{scene.floorplan}"]
        assert goal.task_type == task_type and plan.room in t.goal_rooms[task_type]
        assert scene.floorplan in SEEN_FLOORPLANS
        if goal.recep_type:
            assert goal.obj_type in t.can_contain[goal.recep_type]
            assert goal.recep_type != APPLIANCE.get(task_type)
        property_set = {
            "pick_clean_then_place_in_recep": t.cleanable,
            "pick_heat_then_place_in_recep": t.heatable,
            "pick_cool_then_place_in_recep": t.coolable,
        }.get(task_type)
        if property_set is not None:
            assert goal.obj_type in property_set
        # Every object sits in receptacles that can contain it (lamps and plants aside).
        for obj in scene.objects.values():
            if "pickupable" in obj.properties:
                assert all(obj.type in t.can_contain[scene.receptacles[r].type] for r in obj.receptacles)
            assert obj.locations == [scene.receptacles[r].location for r in obj.receptacles]
        game = compile_game(scene, NEW)
        state = engine.State(game)
        assert not scoring.won(game, state)
        turns = expert.plan(game, state)
        assert 0 < len(turns) <= MAX_EXPERT_STEPS
        for turn in turns:
            assert engine.step(game, state, turn.action).admissible
        assert scoring.won(game, state)
        templates = [
            tpl.format(
                obj=goal.obj_type.lower(),
                recep=(goal.recep_type or "").lower(),
                toggle=(goal.toggle_type or "").lower(),
            )
            + "."
            for tpl in t.goal_templates[task_type]
        ]
        assert scene.task in templates
        phrasings.add(templates.index(scene.task))
    assert phrasings == {0, 1}


def test_room_size_distractors_and_closed_knobs():
    for seed in range(8):
        small = generate(Knobs(task_type="pick_clean_then_place_in_recep", max_receptacles=4, distractors=0), seed)
        assert len(small.receptacles) <= 4
        types = {o.type for o in small.objects.values() if "pickupable" in o.properties}
        assert types == {small.goal.obj_type}
        opened = generate(Knobs(closed=0.0), seed)
        assert all(r.opened for r in opened.receptacles.values() if r.openable)
        closed = generate(Knobs(closed=1.0), seed)
        assert not any(r.opened for r in closed.receptacles.values())
    big = generate(Knobs(task_type="pick_and_place_simple", room="Kitchen"), 4)
    assert len(big.receptacles) > 10 and len(big.objects) > 20


def test_hide_target_and_phrasing_and_floorplans():
    t = tables()
    for seed in range(6):
        hidden = generate(Knobs(task_type="pick_cool_then_place_in_recep", hide_target=True, phrasing=1), seed)
        goal_objs = [o for o in hidden.objects.values() if o.type == hidden.goal.obj_type]
        assert all(hidden.receptacles[r].openable for o in goal_objs for r in o.receptacles)
        assert hidden.task.startswith("cool some ")
        shown = generate(Knobs(task_type="pick_and_place_simple", hide_target=False, phrasing=0), seed)
        goal_objs = [o for o in shown.objects.values() if o.type == shown.goal.obj_type]
        assert not any(shown.receptacles[r].openable for o in goal_objs for r in o.receptacles)
        bedroom = generate(Knobs(room="Bedroom"), seed)
        assert t.floorplans[f"FloorPlan{bedroom.floorplan}"].room == "Bedroom"
        pinned = generate(Knobs(floorplans=(10,)), seed)
        assert pinned.floorplan == 10
    with pytest.raises(GenerationError):
        generate(Knobs(task_type="pick_heat_then_place_in_recep", room="Bathroom"), 0)
    with pytest.raises(ValueError):
        Knobs(task_type="fly")
    with pytest.raises(ValueError):
        Knobs(closed=2.0)


def test_knobs_from_strings():
    knobs = knobs_from(
        {
            "task_type": "pick_two_obj_and_place",
            "max_receptacles": "6",
            "floorplans": "10,219",
            "closed": "0.5",
            "hide_target": "true",
            "distractors": "none",
        }
    )
    assert knobs == Knobs(
        task_type="pick_two_obj_and_place", max_receptacles=6, floorplans=(10, 219), closed=0.5, hide_target=True
    )
    with pytest.raises(ValueError):
        knobs_from({"colour": "red"})


def test_split_mix_and_floorplans():
    for split, size in DEFAULT_SIZES.items():
        assert sorted(Counter(type_sequence(split, size)).items()) == list(enumerate(TYPE_COUNTS[split]))
    small = Counter(type_sequence("train", 60))
    assert sum(small.values()) == 60 and set(small) == set(range(6))
    assert not set(UNSEEN_FLOORPLANS) & set(SEEN_FLOORPLANS)
    assert not set(TEST_FLOORPLANS) & set(SEEN_FLOORPLANS)
    catalog = GeneratedCatalog({"train": 30, "valid_seen": 12, "valid_unseen": 12, "valid_train": 12})
    assert catalog.sizes == {"train": 30, "valid_seen": 12, "valid_unseen": 12, "valid_train": 12}
    unseen = {catalog.scene("valid_unseen", i).floorplan for i in range(12)}
    assert unseen <= set(UNSEEN_FLOORPLANS) and len(unseen) > 1
    seen = [catalog.scene("valid_seen", i) for i in range(12)]
    train = [catalog.scene("train", i) for i in range(12)]
    valid_train = [catalog.scene("valid_train", i) for i in range(12)]  # AgentGym's test games: seen plans
    assert all(s.floorplan in SEEN_FLOORPLANS for s in seen + train + valid_train)
    assert [s.goal.task_type for s in train] == [catalog.task_type("train", i) for i in range(12)]
    # Distinct splits draw distinct games.
    problems = [{write_problem(s) for s in split} for split in (seen, train, valid_train)]
    assert all(a.isdisjoint(b) for i, a in enumerate(problems) for b in problems[i + 1 :])


def test_custom_ids():
    catalog = GeneratedCatalog()
    scene = catalog.custom_scene("gen-17?task_type=look_at_obj_in_light&max_receptacles=5")
    assert scene.goal.task_type == "look_at_obj_in_light" and len(scene.receptacles) <= 5
    assert write_problem(scene) == write_problem(
        generate(Knobs(task_type="look_at_obj_in_light", max_receptacles=5), 17)
    )
    with pytest.raises(ValueError):
        catalog.custom_scene("gen-x")
    assert re.fullmatch(r"valid_seen-\d+", catalog.task_ids("valid_seen", 3, 1)[0])
