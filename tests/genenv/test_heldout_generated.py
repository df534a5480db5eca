"""The simulator's held-out split: combinations that training generation never produces.

A function-calling task's combination is its target tool, its request template (phrasing and
number style) and its arguments. A stable hash holds one combination in five out; every
training path (the parametric pi_env's proposals, base tasks, the demo turn) draws again when it
lands on one, and the "heldout" split is made of them alone, over the whole knob grid.
"""

from __future__ import annotations

import random

import pytest

from coevo.simulator.families import get_family
from coevo.simulator.families.base import HELDOUT_SHARE, is_heldout
from coevo.simulator.policies.parametric import ParametricPolicy
from coevo.simulator.tasks import family_tasks, heldout_tasks

FC = get_family("function_calling")


def test_heldout_split_and_training_never_share_a_combination() -> None:
    heldout = heldout_tasks(["function_calling"], 1000)
    assert len(heldout) == 1000
    held = {FC.combination(t) for t in heldout}
    assert all(is_heldout(c) for c in held if c is not None)

    policy = ParametricPolicy(["function_calling"])
    trained = [p.task for seed in range(40) for p in policy.propose(100, seed) if p.task is not None]
    trained += family_tasks("function_calling", 500, seed=3)
    assert len(trained) >= 4000
    seen = {FC.combination(t) for t in trained}
    assert not seen & held
    assert not {t.task_id for t in trained} & {t.task_id for t in heldout}
    assert not {t.prompt.split("Request: ")[1] for t in trained} & {t.prompt.split("Request: ")[1] for t in heldout}


def test_about_one_combination_in_five_is_held_out() -> None:
    rng = random.Random(0)
    keys = {FC.combination(FC._generate({k: rng.choice(v) for k, v in FC.knobs.items()}, rng)) for _ in range(3000)}
    share = sum(is_heldout(str(k)) for k in keys) / len(keys)
    assert abs(share - 1 / HELDOUT_SHARE) < 0.04


def test_heldout_split_spans_every_knob_value() -> None:
    heldout = heldout_tasks(["function_calling"], 1000)
    for knob, values in FC.knobs.items():
        assert {t.meta["knobs"][knob] for t in heldout} == set(values), knob


def test_families_without_combinations_hold_nothing_out() -> None:
    assert heldout_tasks(["arithmetic"], 10) == []


def test_simulator_serves_the_heldout_split() -> None:
    from coevo.envs import registry

    env = registry.make("simulator", heldout_size=50)
    assert "heldout" in type(env).heldout_splits
    assert env.splits()["heldout"] == 50
    ids = env.task_ids("heldout", 0, 5)
    assert env.split_of(ids[0]) == "heldout"
    first = env.reset(task_id=ids[0])
    assert first.observation.startswith("Tools:")
    step = env.step(str(env.expert_action()))
    assert step.reward == 1.0 and step.done


def test_a_genenv_config_refuses_to_score_on_a_training_split() -> None:
    from coevo.genenv.config import preset

    with pytest.raises(ValueError, match="simulator:heldout"):
        preset("ci", heldout=("simulator:generated:10",)).validated()
    assert preset("ci", heldout=("simulator:heldout:10",)).validated().heldout == ("simulator:heldout:10",)
