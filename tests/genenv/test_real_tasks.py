"""GenEnv's real-task arms: tasks drawn from a real env's train split (API-Bank, one-reply
episodes) by the alpha-curriculum over the server's per-task statistics or uniformly, scored by
the env, with unscored episodes retried and then left out, never learned as reward 0."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from coevo.genenv import curriculum
from coevo.genenv.pool_tables import GenEnvTrainTrace
from coevo.genenv.real_selection import Estimate, curriculum_tasks, uniform_tasks
from coevo.genenv.real_tasks import NotOneStep, RealTasks, policy_tag
from coevo.genenv.simulator import BatchTask, Simulator
from coevo.genenv.trainer import GenEnvTrainer
from tests.genenv.skill_agent import SkillAgent, skill_preset
from tests.server.live import live_server

SIZES = {"train_size": 40, "test_size": 10}
FLAKY = "tests.genenv.flaky_apibank:FlakyApiBankEnv"


@pytest.fixture
def apibank(tmp_path: Path) -> Iterator[str]:
    """An API-Bank server of one-reply episodes that keeps per-task statistics."""
    db_url = f"sqlite:///{tmp_path / 'apibank.db'}"
    with live_server("apibank", db_url=db_url, env_options={**SIZES, "decisions": "first"}) as url:
        yield url


def _flaky(tmp_path: Path, **fails: str) -> live_server:  # type: ignore[valid-type]
    options = {**SIZES, "decisions": "first", "nonce": uuid.uuid4().hex, **fails}
    return live_server(FLAKY, db_url=f"sqlite:///{tmp_path / f'flaky-{uuid.uuid4().hex}.db'}", env_options=options)


# ---------------------------------------------------------------------------- the selection rule
def test_with_no_estimates_the_curriculum_falls_back_to_the_uniform_draw() -> None:
    ids = [f"t{i}" for i in range(30)]
    chosen = curriculum_tasks(ids, {}, 8, random.Random("s"), alpha=0.5, beta=2.0, k_min=0.1)
    assert chosen.task_ids == uniform_tasks(ids, 8, random.Random("s")).task_ids
    assert (chosen.in_band, chosen.unseen_fill, chosen.out_of_band_fill) == (0, 8, 0)


def test_in_band_tasks_come_first_nearest_alpha_then_unseen_then_out_of_band() -> None:
    ids = [f"t{i}" for i in range(10)]
    rates = {"t1": 0.45, "t2": 0.9, "t3": 0.5, "t4": 0.6, "t5": 0.0, "t6": 0.3}
    known = {t: Estimate(p, 4, "tag") for t, p in rates.items()}
    chosen = curriculum_tasks(ids, known, 6, random.Random(0), alpha=0.5, beta=2.0, k_min=0.1)
    assert chosen.task_ids[:3] == ["t3", "t1", "t4"]  # |p - 0.5| = 0, 0.05, 0.1
    assert set(chosen.task_ids[3:]) <= {"t0", "t7", "t8", "t9"}  # unseen: difficulty unknown
    assert (chosen.in_band, chosen.unseen_fill, chosen.out_of_band_fill, chosen.estimated) == (3, 3, 0, 6)
    # Too few unseen tasks: the out-of-band ones fill the rest, nearest alpha first.
    everything = curriculum_tasks(ids, known, 10, random.Random(0), alpha=0.5, beta=2.0, k_min=0.1)
    assert everything.task_ids[-3:] == ["t6", "t2", "t5"] and everything.out_of_band_fill == 3


# ---------------------------------------------------------------------------- the source, over HTTP
def test_a_held_out_split_is_refused_as_a_training_source(apibank: str, tmp_path: Path) -> None:
    cfg = skill_preset(output_dir=str(tmp_path / "run"), arms=("real",), agent_demo=False, real_split="test")
    with pytest.raises(ValueError, match="held out"):
        RealTasks(apibank, cfg.validated(), "real")
    with pytest.raises(ValueError, match="held-out entry"):
        skill_preset(arms=("real",), agent_demo=False, heldout=("apibank:train:5",)).validated()
    with pytest.raises(ValueError, match="agent_demo=false"):
        skill_preset(arms=("real", "genenv")).validated()


def test_train_tasks_that_read_as_a_held_out_task_are_never_drawn(apibank: str, tmp_path: Path) -> None:
    """API-Bank's first API calls repeat across generated dialogues: a train task whose prompt is
    also a test task's is left out of the pool (and the pool is kept for the run)."""
    cfg = skill_preset(output_dir=str(tmp_path / "run"), arms=("real",), agent_demo=False)
    source = RealTasks(apibank, cfg, "real")
    heldout = {source.prompt(t) for t in [f"gen-test-{i:06d}" for i in range(SIZES["test_size"])]}
    train = [f"gen-train-{i:06d}" for i in range(SIZES["train_size"])]
    twins = [t for t in train if source.prompt(t) in heldout]
    assert twins and source.twins == len(twins)  # this generated data has some
    assert source.task_ids == [t for t in train if t not in twins]
    drawn = source.draw(0, len(train))
    assert not {t.task_id for t in drawn.tasks} & set(twins) and len(drawn.tasks) == len(train) - len(twins)
    assert RealTasks(apibank, cfg, "real-uniform").task_ids == source.task_ids  # from the run's file


def test_an_env_error_is_retried_then_left_out_never_scored_zero(tmp_path: Path) -> None:
    cfg = skill_preset(output_dir=str(tmp_path / "run"), arms=("real",), agent_demo=False, real_retries=2)
    # The server's first step raises: that reply is played again on a new session and scored.
    with _flaky(tmp_path, fail_steps="1") as url:
        source = RealTasks(url, cfg, "real")
        source.draw(0, 3)
        pairs = [(t, source.expert(t) or "") for t in source.selection.task_ids]
        assert source.score(pairs) == [1.0, 1.0, 1.0]
        assert source.row()["real_end_statuses"]["env_error"] == 1
        assert source.row()["real_end_statuses"]["success"] == 3
    # One task's every step raises: after the first attempt and two retries its reply has no
    # reward (None), while a wrong reply to another task is the env's 0.
    with _flaky(tmp_path, fail_tasks="gen-train-000004") as url:
        source = RealTasks(url, cfg, "real")
        source.draw(0, 1)
        gold = source.expert("gen-train-000004") or ""
        assert source.score([("gen-train-000004", gold), ("gen-train-000000", "API-Request: [Nope()]")]) == [None, 0.0]
        statuses = source.row()["real_end_statuses"]
        assert statuses["env_error"] == 3 and statuses["failure"] == 1 and statuses["success"] == 0


def test_an_env_that_does_not_end_after_one_reply_is_refused(tmp_path: Path) -> None:
    cfg = skill_preset(output_dir=str(tmp_path / "run"), arms=("real",), agent_demo=False)
    with live_server("apibank", env_options=SIZES) as url:  # every decision point of the dialogue
        source = RealTasks(url, cfg, "real")
        with pytest.raises(NotOneStep, match="decisions=first"):
            source.score([("gen-train-000000", source.expert("gen-train-000000") or "")])


def _mid_or_extreme(task: BatchTask) -> float:
    """Every third task of the split is solved half the time, the others never or always."""
    index = int(task.task_id.rsplit("-", 1)[1])
    return 0.5 if index % 3 == 0 else float(index % 3 == 1)


def test_the_curriculum_arm_prefers_in_band_tasks_as_their_statistics_accumulate(apibank: str, tmp_path: Path) -> None:
    """An agent that solves every third task half the time and the others never or always: the
    real arm moves its draws to the tasks the server estimated in band (those it solves about
    half the time), the uniform twin does not, and both train only on the train split."""
    agents: dict[str, SkillAgent] = {}

    def factory(arm: str, model: str, arm_dir: Path, source: Simulator) -> SkillAgent:
        agents[arm] = SkillAgent(source, 6, probability=_mid_or_extreme)
        return agents[arm]

    out = tmp_path / "run"
    cfg = skill_preset(
        output_dir=str(out), arms=("real", "real-uniform"), agent_demo=False, epochs=3, tasks_per_epoch=8,
        group_size=6, k_min=0.2, real_url=apibank,
    )  # fmt: skip
    trainer = GenEnvTrainer(cfg, agent_factory=factory)
    rows = trainer.run()
    real = [r for r in rows if r["arm"] == "real"]
    uniform = [r for r in rows if r["arm"] == "real-uniform"]
    # Every task either arm trained on is of the train split, none reading as a test task.
    pool = set(trainer_pool(out))
    for agent in agents.values():
        assert all(t.startswith("gen-train-") and t in pool for epoch in agent.trained for t in epoch)
    # Epoch 0: nothing is known, so the curriculum falls back to the uniform twin's very draw.
    assert agents["real"].trained[0] == agents["real-uniform"].trained[0]
    assert (real[0]["real_in_band"], real[0]["real_unseen_fill"]) == (0, 8)
    assert all(r["real_in_band"] == 0 and r["real_unseen_fill"] == 8 for r in uniform)
    # Later epochs take every task the server estimated in band under the earlier epochs' tags,
    # and fill the rest with tasks never judged (never the known hopeless or solved ones).
    for epoch in (1, 2):
        known: dict[str, float] = {}
        for earlier in range(epoch - 1, -1, -1):
            for task, rate in judged(apibank, policy_tag(str(out.resolve()), "real", earlier)).items():
                known.setdefault(task, rate)
        in_band = {t for t, p in known.items() if curriculum.in_band(p, cfg.alpha, cfg.k_min)}
        drawn = set(agents["real"].trained[epoch])
        assert in_band and in_band <= drawn and real[epoch]["real_in_band"] == len(in_band)
        assert not (drawn - in_band) & set(known)
    mid = [sum(_mid_or_extreme(t) == 0.5 for t in tasks) for tasks in (agents["real"].trained_tasks[1:])]
    mid_uniform = [sum(_mid_or_extreme(t) == 0.5 for t in tasks) for tasks in agents["real-uniform"].trained_tasks[1:]]
    assert sum(mid) >= sum(mid_uniform) + 3, (mid, mid_uniform)
    assert sum(r["in_band_fraction"] for r in real[1:]) > sum(r["in_band_fraction"] for r in uniform[1:])
    for row in rows:
        assert row["real_end_statuses"]["env_error"] == 0 and row["rollouts"] == 8 * 6


def trainer_pool(out: Path) -> list[str]:
    return list(json.loads((out / "real-pool-apibank-train.json").read_text())["pool"])


def judged(url: str, tag: str) -> dict[str, float]:
    """{task id: success rate} of the train split's tasks judged at least twice under `tag`."""
    from coevo.client.http import EnvClient

    with EnvClient(url) as client:
        page = client.tasks("train", 0, 1000, p_min=0.0, p_max=1.0, policy=tag, min_episodes=2)
    return {t.task_id: t.stats.success_rate for t in page.tasks if t.stats is not None}


def test_grpo_on_real_tasks_leaves_unscored_replies_out_and_scores_held_out_tasks(tmp_path: Path) -> None:
    """The whole loop with GRPO (TRL) on a tiny model: one task's episodes always fail in the
    env, so its replies get no reward and are left out of D_train and p_hat; the rest are the
    env's rewards; the held-out rows come from API-Bank's held-out split in one-reply episodes."""
    out = tmp_path / "run"
    with (
        _flaky(tmp_path, fail_tasks="gen-train-000001", train_size="5") as real_url,
        live_server("apibank", env_options={**SIZES, "decisions": "first"}) as heldout_url,
    ):
        cfg = skill_preset(
            output_dir=str(out), arms=("real",), agent_demo=False, epochs=1, tasks_per_epoch=5, group_size=2,
            real_url=real_url, heldout=("apibank:test:3",), heldout_urls={"apibank": heldout_url},
            max_completion_length=8, agent_warmup_steps=1, agent_warmup_tasks=3, agent_warmup_batch_size=3,
        )  # fmt: skip
        trainer = GenEnvTrainer(cfg)
        (row,) = trainer.run()
        with Session(trainer.engine) as db:
            recorded = list(db.scalars(select(GenEnvTrainTrace).where(GenEnvTrainTrace.arm == "real")))
    assert {t.task_id for t in recorded} == {f"gen-train-00000{i}" for i in (0, 2, 3, 4)}
    assert all(0.0 <= t.reward <= 1.0 for t in recorded) and len(recorded) == 8
    statuses = row["real_end_statuses"]
    assert statuses["env_error"] == 2 * 3  # two replies, each tried three times
    assert statuses["success"] + statuses["failure"] == 8
    assert row["tasks"] == 4 and row["rollouts"] == 8
    heldout = [r for r in trainer.heldout_metrics() if r["env"] == "apibank"]
    assert [(r["arm"], r["epoch"], r["n"]) for r in heldout] == [("real", -1, 3), ("real", 0, 3)]
    # With a real-task arm first, the SFT warm-up trained on gold answers of the real train split.
    warmup = json.loads((out / "agent_warmup" / "warmup.json").read_text())
    assert warmup["tasks"] == warmup["examples"] == 3
