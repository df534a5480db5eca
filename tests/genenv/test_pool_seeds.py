"""bench/pool_seeds.py end to end on run directories written by the trainers' own writers
(RunDirectory for config.json, HeldoutResult.save for GenEnv's heldout/*.json): the pooled
comparisons, and the refusals that keep unpoolable runs apart."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from coevo.agentevol.config import AgentEvolConfig
from coevo.client.heldout import HeldoutRow
from coevo.genenv.config import preset
from coevo.genenv.heldout import HeldoutResult
from coevo.training import RunDirectory, write_json

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import pool_seeds  # noqa: E402


def row(env: str, split: str, outcomes: list[float]) -> HeldoutRow:
    n = len(outcomes)
    return HeldoutRow(env, split, n, sum(outcomes) / n, 0.0, 1.0, sum(outcomes) / n, outcomes)


def result(gen: list[float], real: list[float], seed: int) -> HeldoutResult:
    lists = {"simulator:heldout": [f"sim-{seed}-{i}" for i in range(len(gen))],
             "bfcl:simple_python": [f"simple_python_{seed}_{i}" for i in range(len(real))]}  # fmt: skip
    return HeldoutResult([row("simulator", "heldout", gen), row("bfcl", "simple_python", real)], lists)


def genenv_run(root: Path, seed: int, gained: int, **overrides: object) -> Path:
    """A finished GenEnv run: 20 generated + 10 BFCL tasks; the trained agent solves `gained`
    more generated tasks than its start and the Random arm, the static arm as many."""
    config = preset("ci", output_dir=str(root), seed=seed, epochs=2, arms=("genenv", "random", "static"),
                    heldout=("simulator:heldout:20", "bfcl:simple_python:10"), **overrides)  # fmt: skip
    RunDirectory(root).begin(config)
    start = [1.0] * 5 + [0.0] * 15
    trained = [1.0] * (5 + gained) + [0.0] * (15 - gained)
    real = [1.0] + [0.0] * 9
    for name, gen in (("start", start), ("genenv-epoch-001", trained), ("random-epoch-001", start),
                      ("static-epoch-001", trained)):  # fmt: skip
        result(gen, real, seed).save(root / "heldout" / f"{name}.json", arm=name)
    return root


def report(*dirs: Path) -> dict:
    return pool_seeds.pool(dirs, resamples=2000)


def test_genenv_runs_pool_every_comparison_of_the_single_run_report(tmp_path: Path) -> None:
    runs = [genenv_run(tmp_path / f"s{seed}", seed, gained) for seed, gained in ((0, 2), (1, 2), (2, 2))]
    pooled = report(*runs)
    assert pooled["trainer"] == "genenv" and pooled["seeds"] == [0, 1, 2]
    comparisons = pooled["comparisons"]
    assert set(comparisons) == {f"gain_vs_{b}{k}" for b in ("start", "random", "static") for k in ("", "_gen", "_real")}
    gen = comparisons["gain_vs_random_gen"]
    assert [(s["seed"], s["difference"], s["n"]) for s in gen["per_seed"]] == [(0, 0.1, 20), (1, 0.1, 20), (2, 0.1, 20)]
    assert gen["difference"] == pytest.approx(0.1) and gen["n"] == 60 and gen["seeds_above_zero"] == 3
    assert 0.0 < gen["ci95_low"] <= 0.1 <= gen["ci95_high"]
    assert (gen["only_after"], gen["only_before"]) == (6, 0) and gen["mcnemar_p"] == pytest.approx(2 / 2**6)
    assert comparisons["gain_vs_static_gen"]["difference"] == 0.0
    assert comparisons["gain_vs_random_real"]["mcnemar_p"] == 1.0
    assert comparisons["gain_vs_random"]["n"] == 90  # generated and real held-out tasks pooled


def test_the_command_prints_json_and_refuses_runs_that_differ_beyond_the_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = genenv_run(tmp_path / "a", 0, 1), genenv_run(tmp_path / "b", 1, 3)
    assert pool_seeds.main(["--json", "--resamples", "500", str(first), str(second)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["comparisons"]["gain_vs_start_gen"]["difference"] == pytest.approx(0.1)

    other_lr = genenv_run(tmp_path / "c", 2, 1, agent_lr=1e-3)
    assert pool_seeds.main([str(first), str(other_lr)]) == 2
    assert "agent_lr" in capsys.readouterr().err
    with pytest.raises(pool_seeds.PoolError, match="share a seed"):
        report(first, genenv_run(tmp_path / "d", 0, 1))
    with pytest.raises(pool_seeds.PoolError, match="at least two"):
        report(first)

    # one arm scored on other tasks than the rest of its run
    result([0.0] * 20, [0.0] * 10, seed=9).save(second / "heldout" / "random-epoch-001.json")
    with pytest.raises(pool_seeds.PoolError, match="random was scored on other held-out tasks"):
        report(first, second)
    (second / "heldout" / "random-epoch-001.json").unlink()
    with pytest.raises(pool_seeds.PoolError, match="is the run finished"):
        report(first, second)


def agentevol_run(root: Path, seed: int, iter2_gain: int, band: str | None = None, band_gain: int = 0) -> Path:
    """A finished AgentEvol run (2 iterations) of 10 tasks, each stage's eval file as the trainer
    writes it ("heldout" rows with outcomes, "task_lists"); with `band`, its band run in band/
    whose last iteration solves `band_gain` more tasks."""
    config = AgentEvolConfig.from_preset("ci", output_dir=str(root), seed=seed, iterations=2, explore_band=band)
    RunDirectory(root).begin(config)
    solved = {"base": 0, "bc": 2, "iter1": 2, "iter2": 2 + iter2_gain}
    for stage, k in solved.items():
        held = row("bfcl", "simple_python", [1.0] * k + [0.0] * (10 - k))
        lists = {"bfcl:simple_python": [f"t{seed}-{i}" for i in range(10)]}
        write_json(root / "eval" / f"{stage}.json", {"heldout": [asdict(held)], "task_lists": lists})
    if band is not None:
        agentevol_run(root / "band", seed, iter2_gain + band_gain)
        write_json(root / "band" / "config.json", {**config.to_dict(), "output_dir": str(root / "band")})
        write_json(root / "config.json", {**config.to_dict(), "explore_band": None})
    return root


def test_agentevol_runs_pool_each_iteration_against_bc(tmp_path: Path) -> None:
    runs = [agentevol_run(tmp_path / f"s{seed}", seed, gain) for seed, gain in ((0, 4), (1, 0))]
    comparisons = report(*runs)["comparisons"]
    assert {"gain", "gain_vs_bc", "gain_bc", "gain_vs_bc_iter1", "gain_vs_bc_iter2"} == set(comparisons)
    last = comparisons["gain_vs_bc"]
    assert [s["difference"] for s in last["per_seed"]] == [0.4, 0.0] and last["difference"] == pytest.approx(0.2)
    assert last["seeds_above_zero"] == 1 and last["ci95_low"] == 0.0  # the seed without a gain is a draw
    assert comparisons["gain_vs_bc_iter1"]["difference"] == 0.0
    assert comparisons["gain_bc"]["difference"] == pytest.approx(0.2)


def test_agentevol_band_runs_pool_band_against_uniform(tmp_path: Path) -> None:
    runs = [agentevol_run(tmp_path / f"s{seed}", seed, 1, band="0.3,0.7", band_gain=2) for seed in (0, 1)]
    band = report(*runs)["comparisons"]["gain_band_vs_uniform"]
    assert [s["difference"] for s in band["per_seed"]] == [0.2, 0.2] and band["mcnemar_p"] == pytest.approx(2 / 2**4)
    other_band = agentevol_run(tmp_path / "s2", 2, 1, band="0.2,0.8", band_gain=2)
    with pytest.raises(pool_seeds.PoolError, match=r"in band\.explore_band, not only"):
        report(runs[0], other_band)
    with pytest.raises(pool_seeds.PoolError, match="other comparisons"):
        report(runs[0], agentevol_run(tmp_path / "s3", 3, 1))


def test_real_task_arms_pool_real_against_uniform(tmp_path: Path) -> None:
    runs = []
    for seed in (0, 1):
        root = tmp_path / f"r{seed}"
        config = preset("ci", output_dir=str(root), seed=seed, epochs=2, arms=("real", "real-uniform"), agent_demo=False,
                        heldout=("apibank:test:10",))  # fmt: skip
        RunDirectory(root).begin(config)
        for name, solved in (("start", 2), ("real-epoch-001", 5), ("real-uniform-epoch-001", 3)):
            scored = HeldoutResult([row("apibank", "test", [1.0] * solved + [0.0] * (10 - solved))],
                                   {"apibank:test": [f"a{seed}-{i}" for i in range(10)]})  # fmt: skip
            scored.save(root / "heldout" / f"{name}.json")
        runs.append(root)
    comparisons = report(*runs)["comparisons"]
    assert set(comparisons) == {f"gain_{a}_vs_{b}{s}" for a, b in (("real", "start"), ("real_uniform", "start"),
                                ("real", "uniform")) for s in ("", "_apibank")}  # fmt: skip
    versus = comparisons["gain_real_vs_uniform_apibank"]
    assert [s["difference"] for s in versus["per_seed"]] == pytest.approx([0.2, 0.2]) and versus["n"] == 20
    assert versus["difference"] == pytest.approx(0.2) and (versus["only_after"], versus["only_before"]) == (4, 0)
