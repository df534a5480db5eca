"""D_train replay with an agent of known skill: past learnable tasks and base tasks take their
share of each epoch's GRPO tasks (never more), reach the agent as the BatchTasks they were, go
to D_train under their own source and stay out of D_env and the epoch's metrics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from coevo.genenv.simulator import BatchTask
from coevo.genenv.trainer import GenEnvTrainer
from coevo.genenv.pool_tables import GenEnvTrainTrace
from tests.genenv.skill_agent import SkillAgent, skill_preset


def _run(tmp_path: Path, **overrides: Any) -> tuple[GenEnvTrainer, list[dict[str, Any]], dict[str, SkillAgent]]:
    settings = dict(
        output_dir=str(tmp_path / "run"), arms=("genenv",), epochs=3, tasks_per_epoch=10, group_size=10, heldout=()
    )
    cfg = skill_preset(**{**settings, **overrides})
    agents: dict[str, SkillAgent] = {}

    def factory(arm, model, arm_dir, simulator):  # type: ignore[no-untyped-def]
        agents[arm] = SkillAgent(simulator, cfg.group_size)
        return agents[arm]

    trainer = GenEnvTrainer(cfg, agent_factory=factory)
    return trainer, trainer.run(), agents


def _fresh(trainer: GenEnvTrainer, arm: str, epoch: int) -> dict[str, float]:
    """The epoch's D_env rows: fresh task id -> p_hat."""
    return {
        s.task_id: s.p_hat
        for s in trainer.pools.env_samples(arm, first_epoch=epoch, in_band_only=False)
        if s.epoch == epoch
    }


def _sources(trainer: GenEnvTrainer, arm: str) -> dict[str, int]:
    with trainer.pools.engine.connect() as conn:
        return dict(
            conn.execute(
                select(GenEnvTrainTrace.source, func.count())
                .where(GenEnvTrainTrace.arm == arm)
                .group_by(GenEnvTrainTrace.source)
            ).all()
        )  # type: ignore[arg-type]


def test_past_learnable_tasks_are_replayed_in_later_epochs(tmp_path: Path) -> None:
    trainer, rows, agents = _run(tmp_path, replay_fraction=0.3)
    agent = agents["genenv"]
    shown: dict[str, BatchTask] = {}  # every task the agent trained on fresh, as it was handed over
    for row in rows:
        epoch = row["epoch"]
        fresh = _fresh(trainer, "genenv", epoch)
        trained = agent.trained_tasks[epoch]
        replayed = [t for t in trained if t.task_id not in fresh]
        assert len(trained) == 10  # the replayed take a share of the GRPO tasks, not extra
        assert row["replayed_tasks"] == len(replayed) == (0 if epoch == 0 else 3)  # round(0.3 x 10)
        # neither in D_env nor in the metrics (a task generated twice in a batch counts once)
        assert row["tasks"] == len(fresh) == len({t.task_id for t in trained if t.task_id in fresh})
        for task in replayed:  # the same task as when it was fresh, from an earlier epoch
            assert shown[task.task_id] == task
        if replayed:
            # the latest epoch first, and within it the learnable tasks nearest alpha
            last = _fresh(trainer, "genenv", epoch - 1)
            learnable = {t: p for t, p in last.items() if 0 < p < 1}
            assert len(learnable) >= 3 and {t.task_id for t in replayed} <= set(learnable)
            passed_over = {r.task_id for r in replayed} | set(fresh)  # a task is trained on once an epoch
            skipped = [abs(p - 0.5) for t, p in learnable.items() if t not in passed_over]
            assert max(abs(learnable[t.task_id] - 0.5) for t in replayed) <= min(skipped, default=1.0)
        shown.update({t.task_id: t for t in trained if t.task_id in fresh})
    sources = _sources(trainer, "genenv")
    assert sources == {"on_policy": 10 * sum(10 - r["replayed_tasks"] for r in rows), "replay": 10 * 6}


def test_replay_under_dynamic_sampling_fills_the_same_grpo_budget(tmp_path: Path) -> None:
    trainer, rows, agents = _run(
        tmp_path, tasks_per_epoch=24, group_size=5, grpo_tasks_per_epoch=4, replay_fraction=0.5
    )
    agent = agents["genenv"]
    for row in rows:
        epoch = row["epoch"]
        sampled, trained = agent.sampled[epoch], agent.trained[epoch]
        replayed = [t for t in trained if t not in sampled]
        assert len(sampled) == 24  # the sampling pass covers the fresh tasks alone
        assert row["replayed_tasks"] == len(replayed) == (0 if epoch == 0 else 2)
        assert len(trained) <= 4 and row["grpo_tasks"] == len(trained)
        assert row["tasks"] == len(set(sampled))
    assert _sources(trainer, "genenv")["replay"] == 5 * 4


def test_base_tasks_are_drawn_from_the_first_epoch_and_the_same_for_every_arm(tmp_path: Path) -> None:
    trainer, rows, agents = _run(tmp_path, arms=("genenv", "random"), epochs=2, replay_base_fraction=0.2)
    base = {}
    for row in rows:
        arm, epoch = row["arm"], row["epoch"]
        agent = agents[arm]
        index = agent.simulator.shared.base_index
        from_base = [t for t in agent.trained_tasks[epoch] if t.task_id in index]
        assert row["replayed_tasks"] == row["replayed_base_tasks"] == len(from_base) == 2
        assert len(agent.trained_tasks[epoch]) == 10 and row["tasks"] <= 8
        for task in from_base:
            assert task.prompt == index[task.task_id].prompt and task.context["source"] == "base"
        base.setdefault(epoch, {}).update({arm: sorted(t.task_id for t in from_base)})
    for by_arm in base.values():
        assert by_arm["genenv"] == by_arm["random"]
    assert base[0] != base[1]  # a seeded sample per epoch
    assert _sources(trainer, "genenv")["base"] == 10 * 2 * 2


def test_without_replay_the_agent_trains_on_the_fresh_batch_alone(tmp_path: Path) -> None:
    trainer, rows, agents = _run(tmp_path)
    for row in rows:
        assert row["replayed_tasks"] == row["replayed_base_tasks"] == 0
        assert set(agents["genenv"].trained[row["epoch"]]) == set(_fresh(trainer, "genenv", row["epoch"]))
    assert set(_sources(trainer, "genenv")) == {"on_policy"}


def test_replayed_tasks_outlive_a_resume(tmp_path: Path) -> None:
    """The pools rebuild a past task after a restart, from the store alone."""
    _run(tmp_path, epochs=1, replay_fraction=0.3)
    trainer, rows, agents = _run(tmp_path, epochs=2, replay_fraction=0.3)
    assert [r["epoch"] for r in rows] == [0, 1] and rows[1]["replayed_tasks"] == 3
    (resumed,) = agents["genenv"].trained  # this process ran epoch 1 only
    replayed = [t for t in resumed if t not in _fresh(trainer, "genenv", 1)]
    assert len(replayed) == 3 and set(replayed) <= set(_fresh(trainer, "genenv", 0))


@pytest.mark.parametrize(
    "field,value,match",
    [
        ("replay_fraction", 1.0, "replay_fraction must be in"),
        ("replay_fraction", -0.1, "replay_fraction must be in"),
        ("replay_base_fraction", 1.5, "replay_base_fraction must be in"),
    ],
)
def test_bad_replay_fractions_are_refused(field: str, value: float, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        skill_preset(**{field: value})


def test_replay_shares_must_leave_fresh_tasks() -> None:
    with pytest.raises(ValueError, match=r"replay_fraction \+ replay_base_fraction"):
        skill_preset(replay_fraction=0.6, replay_base_fraction=0.4)


def test_the_pools_rebuild_past_learnable_tasks_latest_epoch_and_nearest_alpha_first() -> None:
    from coevo.genenv import curriculum
    from coevo.genenv.pools import EnvSample, Pools
    from coevo.store.db import make_engine

    pools = Pools(make_engine("sqlite://"), run_id="run")

    def record(arm: str, epoch: int, tasks: dict[str, float]) -> None:
        shown = [
            BatchTask(t, "function_calling", f"prompt of {t}", {"knobs": {"n_tools": 1}, "at": epoch}, f"out {t}")
            for t in tasks
        ]
        pools.add_env_samples(
            arm,
            epoch,
            [
                EnvSample(t.task_id, t.context, t.output, p, 10, float(curriculum.r_env(p)), curriculum.in_band(p))
                for t, p in zip(shown, tasks.values())
            ],
        )
        pools.add_tasks_shown(arm, epoch, shown)

    record("genenv", 0, {"a": 0.5, "b": 0.0, "c": 0.3, "d": 1.0, "e": 0.9})
    record("genenv", 1, {"f": 0.2, "c": 0.6, "g": 1.0, "h": 0.45})
    record("genenv", 2, {"i": 0.5})  # not before epoch 2
    record("random", 0, {"z": 0.5})  # another arm
    replay = pools.replay_tasks("genenv", before_epoch=2)
    # epoch 1's learnable tasks nearest alpha first (c's latest p_hat), then epoch 0's; never
    # a task solved always or never; each task once, from its latest epoch
    assert [t.task_id for t in replay] == ["h", "c", "f", "a", "e"]
    assert replay[1] == BatchTask("c", "function_calling", "prompt of c", {"knobs": {"n_tools": 1}, "at": 1}, "out c")
    assert pools.replay_tasks("genenv", before_epoch=0) == []
    pools.forget_from("genenv", 1)
    assert [t.task_id for t in pools.replay_tasks("genenv", before_epoch=2)] == ["a", "c", "e"]
