"""The whole loop with the real agent side — GRPO through TRL — on a tiny random model:
every arm, metrics.jsonl, the plot, checkpoints, resume, and the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from coevo.cli import app
from coevo.genenv.config import preset
from coevo.genenv.trainer import GenEnvTrainer

FIELDS = {"arm", "epoch", "success_rate", "in_band_fraction", "mean_r_env", "validity_rate"}


def test_ci_preset_runs_every_arm_and_resumes(tmp_path: Path) -> None:
    import coevo.cli.genenv_cmd  # noqa: F401  (registers the command)

    from coevo.models.checkpoints import cache_dir

    out = tmp_path / "run"
    cached = set((cache_dir() / "gguf").glob("*.gguf"))
    result = CliRunner().invoke(app, ["genenv", "--preset", "ci", "--output-dir", str(out), "--epochs", "1"])
    assert result.exit_code == 0, result.output
    # Seven held-out evaluations of checkpoints that change every epoch: no GGUF copy is left.
    assert set((cache_dir() / "gguf").glob("*.gguf")) <= cached
    everything = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    rows = [r for r in everything if "kind" not in r]
    assert [(r["arm"], r["epoch"]) for r in rows] == [("genenv", 0), ("random", 0), ("static", 0)]
    assert_heldout_rows(out, epochs=1)
    for row in rows:
        assert FIELDS <= set(row)
        assert 0 <= row["success_rate"] <= 1 and 0 <= row["in_band_fraction"] <= 1
        assert row["rollouts"] == row["tasks"] * 2  # ci: group of 2 per task
    for arm in ("genenv", "random", "static"):
        assert (out / arm / "agent" / "model.safetensors").exists()
        assert (out / arm / "agent" / "optimizer.pt").exists()
        assert json.loads((out / arm / "state.json").read_text())["epochs_done"] == 1
    assert (out / "genenv.png").exists()
    static_pool = json.loads((out / "static" / "state.json").read_text())["static_pool"]["tasks"]
    ci = preset("ci")
    assert len(static_pool) == round(ci.static_pool_epochs * ci.tasks_per_epoch)  # several epochs' worth

    # Resume: the same directory with more epochs continues after the last finished one.
    rows = GenEnvTrainer(preset("ci", output_dir=str(out), epochs=2)).run()
    assert [(r["arm"], r["epoch"]) for r in rows] == [
        ("genenv", 0),
        ("random", 0),
        ("static", 0),
        ("genenv", 1),
        ("random", 1),
        ("static", 1),
    ]
    assert json.loads((out / "static" / "state.json").read_text())["static_pool"]["tasks"] == static_pool
    assert_heldout_rows(out, epochs=2)  # the resumed epochs added theirs, the start rows stayed single
    # D_train / D_env hold each finished epoch once, not the redone ones twice
    last = {r["arm"]: r for r in rows if r["epoch"] == 1}
    first = {r["arm"]: r for r in rows if r["epoch"] == 0}
    for arm in last:
        assert last[arm]["d_env"] == first[arm]["d_env"] + last[arm]["tasks"]

    # A different config in the same directory is refused rather than mixed in.
    with pytest.raises(ValueError, match="different config"):
        GenEnvTrainer(preset("ci", output_dir=str(out), epochs=2, tasks_per_epoch=5))


def assert_heldout_rows(out: Path, epochs: int) -> None:
    """The ci preset's held-out rows: every arm, the starting agent (epoch -1) and every epoch,
    each split once, all on the same official BFCL task lists."""
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    held = [r for r in rows if r.get("kind") == "heldout"]
    wanted = {
        (arm, epoch, split)
        for arm in ("genenv", "random", "static")
        for epoch in range(-1, epochs)
        for split in ("simple_python", "multiple")
    }
    assert sorted((r["arm"], r["epoch"], r["split"]) for r in held) == sorted(wanted)
    for r in held:
        assert r["env"] == "bfcl" and r["n"] == (3 if r["split"] == "simple_python" else 2)
        assert 0 <= r["ci95_low"] <= r["success_rate"] <= r["ci95_high"] <= 1
    files = sorted((out / "heldout").glob("*.json"))
    assert {f.name for f in files} == {"start.json"} | {
        f"{a}-epoch-{e:03d}.json" for a in ("genenv", "random", "static") for e in range(epochs)
    }
    lists = {json.dumps(json.loads(f.read_text())["task_lists"], sort_keys=True) for f in files}
    assert len(lists) == 1  # one fixed task list for every arm and epoch
    task_lists = json.loads(files[0].read_text())["task_lists"]
    assert [len(task_lists["bfcl:simple_python"]), len(task_lists["bfcl:multiple"])] == [3, 2]


def test_several_tasks_per_grpo_step_train_and_score_every_task(tmp_path: Path) -> None:
    """Two tasks per optimizer step over three tasks: TRL would drop the half-empty last step,
    so the first task fills it and is sampled twice; no task goes unscored."""
    trainer = GenEnvTrainer(
        preset("ci", output_dir=str(tmp_path), arms=("genenv",), epochs=1, tasks_per_epoch=3, tasks_per_step=2)
    )
    (row,) = trainer.run()
    assert row["tasks"] == 3
    assert row["rollouts"] == 4 * 2  # four prompts (three tasks and the filler) x a group of 2
    assert trainer.pools.sizes("genenv") == (8, 3)
    with pytest.raises(ValueError, match="tasks_per_step"):
        preset("ci", tasks_per_step=0)


@pytest.mark.parametrize("backend", ["transformers", "llamacpp"])
def test_sampling_pass_draws_a_group_per_task_reproducibly_and_leaves_grpo_untouched(
    tmp_path: Path, backend: str
) -> None:
    """Dynamic sampling's p_hat sample: group_size scored completions per task, the same for the
    same seed, drawn on an RNG of its own (GRPO's sampling stream is not moved); on llama.cpp,
    the weights are synced before every pass."""
    import torch

    if backend == "llamacpp":
        pytest.importorskip("llama_cpp")
    cfg = preset("ci", output_dir=str(tmp_path), arms=("genenv",), max_completion_length=8, sample_backend=backend)
    trainer = GenEnvTrainer(cfg)
    simulator = trainer._simulator("genenv", trainer.models.initial_env_policy())
    agent = trainer.agent_factory("genenv", trainer.models.model_dir("tiny"), tmp_path / "agent", simulator)
    tasks = simulator.generate(11, seed=5).tasks  # more than one generate() call's worth
    rng_before = torch.random.get_rng_state()
    agent.trainer.model.train()
    first = agent.sample(tasks, seed=3)
    assert torch.equal(torch.random.get_rng_state(), rng_before)
    assert agent.trainer.model.training  # back in the mode it was in
    assert [t.task_id for t in first] == [t.task_id for t in tasks for _ in range(cfg.group_size)]
    assert all(0 <= t.reward <= 1 for t in first)
    assert [t.completion for t in agent.sample(tasks, seed=3)] == [t.completion for t in first]
    assert [t.completion for t in agent.sample(tasks, seed=4)] != [t.completion for t in first]
    if backend == "llamacpp":
        assert agent._sampler is not None and agent._sampler.last_sync_s is not None  # synced before later passes
        with torch.no_grad():  # an update: the next pass must sample from the new weights
            for p in agent.trainer.model.parameters():
                p.mul_(0.0)
        zeroed = agent.sample(tasks, seed=3)
        assert [t.completion for t in zeroed] != [t.completion for t in first]
    else:
        assert agent._sampler is None
    simulator.close()


def test_dynamic_sampling_with_the_grpo_agent_skips_grpo_when_no_group_is_mixed(tmp_path: Path) -> None:
    """A tiny random model never answers right: every group is all zeros, so there is nothing
    for GRPO to learn and it is skipped, while p_hat and the metrics still cover every task."""
    trainer = GenEnvTrainer(
        preset(
            "ci",
            output_dir=str(tmp_path),
            arms=("genenv", "random"),
            epochs=1,
            tasks_per_epoch=4,
            grpo_tasks_per_epoch=2,
        )
    )
    rows = trainer.run()
    for row in rows:
        assert row["tasks"] == 4 and row["grpo_tasks"] == 0 and row["rollouts"] == 4 * 2
        assert row["success_rate"] == 0.0
    assert trainer.pools.sizes("genenv") == (8, 4)


def test_agent_warm_up_is_trained_once_and_every_arm_starts_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SFT on gold answers before GRPO: its loss falls, both arms' GRPO agents are built from
    the warmed model (not the tiny one), and a resumed run reuses it rather than training again."""
    from safetensors.torch import load_file

    out = tmp_path / "run"
    cfg = preset(
        "ci",
        output_dir=str(out),
        arms=("genenv", "random"),
        epochs=1,
        agent_warmup_steps=20,
        agent_warmup_lr=1e-2,
        agent_warmup_tasks=6,
    )
    built: list[tuple[str, str]] = []

    def recording(trainer: GenEnvTrainer) -> GenEnvTrainer:
        real = trainer.agent_factory

        def factory(arm, model, arm_dir, simulator):  # type: ignore[no-untyped-def]
            built.append((arm, model))
            return real(arm, model, arm_dir, simulator)

        trainer.agent_factory = factory
        return trainer

    rows = recording(GenEnvTrainer(cfg)).run()
    warm = out / "agent_warmup"
    stats = json.loads((warm / "warmup.json").read_text())
    assert stats["steps"] == 20 and stats["examples"] == 6 == stats["tasks"]
    assert stats["nll"] < 0.5 * stats["nll_first"], stats
    assert built == [("genenv", str(warm)), ("random", str(warm))]
    assert [r["arm"] for r in rows] == ["genenv", "random"]
    tiny = load_file(str(out / "tiny-model" / "model.safetensors"))
    warmed = load_file(str(warm / "model.safetensors"))
    assert any(not (tiny[k] == warmed[k]).all() for k in tiny)
    assert not (out / "agent_warmup.tmp").exists()

    def train_again(*_: object, **__: object) -> None:
        raise AssertionError("the warm-up ran again on resume")

    monkeypatch.setattr("coevo.genenv.agent_warmup.warm_up_agent", train_again)
    rows = recording(GenEnvTrainer(preset("ci", **{**vars(cfg), "epochs": 2}))).run()
    assert [(r["arm"], r["epoch"]) for r in rows][-2:] == [("genenv", 1), ("random", 1)]
    assert built[2:] == [("genenv", str(warm)), ("random", str(warm))]
    with pytest.raises(ValueError, match="different config"):
        GenEnvTrainer(preset("ci", **{**vars(cfg), "agent_warmup_steps": 5}))
    for bad in ({"agent_warmup_tasks": 0}, {"agent_warmup_steps": -1}, {"agent_warmup_batch_size": 0}):
        with pytest.raises(ValueError, match="agent_warmup_tasks"):
            preset("ci", **bad)


def test_agent_warm_up_without_gold_answers_is_refused_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from coevo.genenv.agent_warmup import warm_up_agent

    cfg = preset("ci", output_dir=str(tmp_path), agent_warmup_steps=2, agent_warmup_tasks=3)
    trainer = GenEnvTrainer(cfg)
    simulator = trainer._simulator("genenv", trainer.models.initial_env_policy())
    monkeypatch.setattr(simulator, "expert", lambda task_id: None)
    with pytest.raises(RuntimeError, match="no generated task with a gold answer"):
        warm_up_agent(trainer.models.model_dir("tiny"), tmp_path / "warm", simulator, cfg, seed=0)
    assert not (tmp_path / "warm").exists()
    simulator.close()


def test_gold_answers_longer_than_the_completion_budget_are_counted_and_warned(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A completion cut at max_completion_length cannot be right; the warm-up says how many of
    its gold answers would not fit, so a budget that makes tasks unsolvable is noticed."""
    from transformers import AutoTokenizer

    from coevo.genenv.agent_warmup import answers_over_budget, warm_up_agent

    cfg = preset("ci", output_dir=str(tmp_path), agent_warmup_steps=1, agent_warmup_tasks=3)
    trainer = GenEnvTrainer(cfg)
    model = trainer.models.model_dir("tiny")
    tokenizer = AutoTokenizer.from_pretrained(model)
    short, long = "f(a=1)", 'search_flights(origin="Dublin", destination="Hanoi", passengers=1)'
    n_short, n_long = (len(tokenizer(x, add_special_tokens=False)["input_ids"]) for x in (short, long))
    assert n_short < n_long
    assert answers_over_budget(model, [short, long], n_long) == 0
    assert answers_over_budget(model, [short, long], n_short) == 1
    assert answers_over_budget(model, [short, long], n_short - 1) == 2

    simulator = trainer._simulator("genenv", trainer.models.initial_env_policy())
    with caplog.at_level("WARNING", logger="coevo.genenv.agent_warmup"):
        stats = warm_up_agent(model, tmp_path / "tight", simulator, cfg, seed=0)
    assert stats["answers_over_budget"] == 3  # ci's 6 tokens hold no gold call
    assert "3 of 3 gold answers are longer than max_completion_length=6" in caplog.text
    caplog.clear()
    roomy = preset(
        "ci", output_dir=str(tmp_path), agent_warmup_steps=1, agent_warmup_tasks=3, max_completion_length=200
    )
    assert warm_up_agent(model, tmp_path / "roomy", simulator, roomy, seed=0)["answers_over_budget"] == 0
    assert "gold answers are longer" not in caplog.text
    simulator.close()


def test_cli_rejects_bad_settings(tmp_path: Path) -> None:
    import coevo.cli.genenv_cmd  # noqa: F401

    runner = CliRunner()
    bad_arm = runner.invoke(app, ["genenv", "--preset", "ci", "--output-dir", str(tmp_path), "--arms", "genenv,oracle"])
    assert bad_arm.exit_code != 0 and "arms" in bad_arm.output
    bad_key = runner.invoke(app, ["genenv", "--preset", "ci", "--output-dir", str(tmp_path), "--set", "colour=red"])
    assert bad_key.exit_code != 0 and "colour" in bad_key.output
    no_model = runner.invoke(app, ["genenv", "--preset", "ci", "--output-dir", str(tmp_path), "--env-backend", "llm"])
    assert no_model.exit_code != 0 and "env_model" in no_model.output
    bad_bf16 = runner.invoke(app, ["genenv", "--preset", "ci", "--output-dir", str(tmp_path), "--set", "bf16=maybe"])
    assert bad_bf16.exit_code != 0 and "bf16 is one of auto, true, false" in " ".join(bad_bf16.output.split())
    assert not (tmp_path / "metrics.jsonl").exists()  # refused before any work


def test_llm_simulator_with_the_grpo_agent_from_the_command_line(tmp_path: Path) -> None:
    """The LLM pi_env path end to end with tiny models on both sides: warm-up, generation
    through the gate, GRPO on the generated tasks, metrics."""
    import coevo.cli.genenv_cmd  # noqa: F401

    out = tmp_path / "llm"
    result = CliRunner().invoke(
        app,
        [
            "genenv",
            "--preset",
            "ci",
            "--output-dir",
            str(out),
            "--arms",
            "genenv,random",
            "--epochs",
            "1",
            "--env-backend",
            "llm",
            "--env-model",
            "tiny",
            "--set",
            "base_sources=arithmetic",
            "--set",
            "env_warmup_steps=80",
            "--set",
            "env_warmup_lr=1e-2",
            "--set",
            "llm_examples=1",
            "--set",
            "llm_max_new_tokens=40",
            "--set",
            "llm_temperature=0.5",
        ],
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    rows = [r for r in rows if "kind" not in r]  # the epoch rows (held-out rows have a kind)
    assert [r["arm"] for r in rows] == ["genenv", "random"]
    for row in rows:
        assert 0 < row["validity_rate"] <= 1 and row["tasks"] >= 1 and row["rollouts"] >= 2
        assert row["policy_version"].startswith("llm-")
