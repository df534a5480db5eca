"""Every env's held-out splits are disjoint from the splits trainers may draw from: no task id
and no first observation (the task as an agent sees it) is shared, generated splits included."""

from __future__ import annotations

import pytest

from coevo.client.heldout import task_indices
from coevo.envs import registry

#: Tasks compared per split (spread by a seeded draw, as held-out lists are).
SAMPLE = 40
#: Envs whose first observation is the agent's partial view of a generated level: two levels can
#: look alike at the start (babyai: "go to the red ball" facing a bare wall) while their grids
#: differ. For them the tasks themselves (describe_task: level and its seed) must be disjoint.
PARTIAL_VIEW = {"babyai"}


def _first_observations(env: object, split: str, total: int) -> dict[str, str]:
    seen = {}
    for index in task_indices(total, SAMPLE, 0, "disjoint", split):
        task_id = env.task_ids(split, index, 1)[0]  # type: ignore[attr-defined]
        seen[task_id] = env.reset(task_id=task_id, seed=0).observation.strip()  # type: ignore[attr-defined]
    return seen


@pytest.mark.parametrize("name", sorted(registry.BUILTIN))
def test_heldout_splits_share_no_task_with_training_splits(name: str) -> None:
    try:
        env = registry.make(name)
    except Exception as exc:  # an optional env's dependency missing here
        pytest.skip(f"{name} does not load: {exc}")
    splits = {s: n for s, n in env.splits().items() if n}
    heldout = [s for s in type(env).heldout_splits if s in splits]
    training = [s for s in splits if s not in type(env).heldout_splits]
    assert heldout, f"{name} declares no held-out split it has ({type(env).heldout_splits}, splits {sorted(splits)})"
    assert type(env).default_split not in heldout or name == "bfcl"  # BFCL is all evaluation data
    held = {s: _first_observations(env, s, splits[s]) for s in heldout}
    trained = {s: _first_observations(env, s, splits[s]) for s in training}
    held_ids = {task_id for seen in held.values() for task_id in seen}
    held_texts = {text for seen in held.values() for text in seen.values()}
    for split, seen in trained.items():
        assert not held_ids & set(seen), f"{name}: {split} shares task ids with a held-out split"
        if name in PARTIAL_VIEW:
            held_tasks = {repr(sorted(env.describe_task(t).items())) for seen in held.values() for t in seen}
            assert not held_tasks & {repr(sorted(env.describe_task(t).items())) for t in seen}, name
            continue
        shared = held_texts & set(seen.values())
        assert not shared, (
            f"{name}: {split} shares {len(shared)} task(s) with a held-out split, e.g. {next(iter(shared))[:200]!r}"
        )


@pytest.mark.parametrize("name", ["bfcl", "alfworld"])
def test_simulator_base_tasks_never_come_from_heldout_splits(name: str) -> None:
    """GenEnv's LLM environment policy imitates base tasks from real envs, and they can be
    replayed to the agent: none may be an evaluation task (BFCL's default split is held out)."""
    from coevo.simulator.tasks import build_base_pool, training_split

    try:
        env = registry.make(name)
    except Exception as exc:
        pytest.skip(f"{name} does not load: {exc}")
    pool, _ = build_base_pool([name], 6, 0)
    assert pool
    for task in pool:
        assert env.split_of(task.meta["env_task_id"]) == training_split(env)
        assert training_split(env) not in type(env).heldout_splits


def test_an_env_whose_training_split_is_held_out_is_refused() -> None:
    from coevo.simulator.tasks import training_split

    env = registry.make("bfcl")

    class Leaky(type(env)):  # type: ignore[misc]
        train_split = None  # falls back to default_split, simple_python: held out

    with pytest.raises(ValueError, match="held out for evaluation"):
        training_split(Leaky.__new__(Leaky))
