"""The static-augmentation baseline: a pool of static_pool_epochs x tasks_per_epoch tasks, generated
once by the initial simulator (kept across epochs and a resume), every batch drawn from it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coevo.genenv.config import GenEnvConfig, load_config
from coevo.genenv.trainer import GenEnvTrainer
from coevo.simulator.records import count_tasks
from tests.genenv.skill_agent import SkillAgent, skill_preset


def _run(out: Path, epochs: int) -> tuple[GenEnvTrainer, list[dict[str, Any]], SkillAgent]:
    cfg = skill_preset(
        output_dir=str(out),
        arms=("static",),
        epochs=epochs,
        tasks_per_epoch=4,
        static_pool_epochs=2.5,
        group_size=4,
        heldout=(),
    )
    agents: list[SkillAgent] = []

    def factory(arm, model, arm_dir, simulator):  # type: ignore[no-untyped-def]
        agents.append(SkillAgent(simulator, cfg.group_size))
        return agents[-1]

    trainer = GenEnvTrainer(cfg, agent_factory=factory)
    return trainer, trainer.run(), agents[0]


def _pool(out: Path) -> list[str]:
    return [t["task_id"] for t in json.loads((out / "static" / "state.json").read_text())["static_pool"]["tasks"]]


def test_the_pool_holds_several_epochs_of_tasks_is_generated_once_and_feeds_every_batch(tmp_path: Path) -> None:
    out = tmp_path / "run"
    trainer, rows, agent = _run(out, epochs=2)
    pool = _pool(out)
    assert len(pool) == 10  # round(2.5 x 4)
    # the only tasks this run generated are the pool's: it was generated once, not per epoch
    assert count_tasks(trainer.engine) == len(set(pool))
    batches = [set(ids) for ids in agent.trained]
    assert all(len(b) <= 4 and b <= set(pool) for b in batches)
    # a resumed run keeps the pool and still generates nothing new
    trainer, rows, agent = _run(out, epochs=3)
    assert _pool(out) == pool and count_tasks(trainer.engine) == len(set(pool))
    (resumed,) = agent.trained
    assert set(resumed) <= set(pool)
    batches.append(set(resumed))
    assert len({frozenset(b) for b in batches}) > 1  # each epoch draws its own batch from it


def test_a_config_written_with_static_pool_size_still_loads(tmp_path: Path) -> None:
    data = GenEnvConfig(tasks_per_epoch=4).to_dict()
    del data["static_pool_epochs"]
    data["static_pool_size"] = 8
    (tmp_path / "config.json").write_text(json.dumps(data))
    cfg = load_config(tmp_path / "config.json")
    assert cfg.static_pool_epochs == 2.0 and cfg.static_pool_size == 8


@pytest.mark.parametrize("field,value", [("static_pool_epochs", 0.0), ("rwr_lambda", -1.0)])
def test_bad_pool_and_rwr_settings_are_refused(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        skill_preset(**{field: value})
