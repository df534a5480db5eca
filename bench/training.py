"""Training benchmark: does training through coevo make SmolLM2-135M better on a real benchmark's
held-out tasks? One run of a trainer, the base model and the trained model scored on the same
fixed task lists, with 95% intervals and a paired interval on the gain.

- genenv: the agent trains only on simulator tasks (the cpu-demo preset: SFT warm-up on gold
  answers of generated tasks, then GenEnv and GenEnv-Random side by side) and is scored on
  BFCL's official data (non-live simple_python and multiple by default), shown in the view it
  trained in (coevo.genenv.heldout). `base` is SmolLM2-135M-Instruct itself, `start` the
  warmed agent both arms begin from, `trained` GenEnv's last epoch and `random`
  GenEnv-Random's.
- genenv with `--arms real,real-uniform` (or beside the others): the real-task arms train on a
  real env's train split (API-Bank's generated `train` dialogues, one-reply episodes on their
  first API call), chosen by the alpha-curriculum over the server's per-task statistics (`real`)
  or uniformly (`real-uniform`), and are scored on that env's held-out split (`--real-split`,
  `--real-n` tasks) beside the other held-out splits: "real", "real_uniform",
  "gain_real_vs_uniform" (paired, same tasks) and "gain_real_vs_start", pooled and on the real
  env's split alone (`*_apibank`), and "real_selection" (per epoch: tasks taken in band, filled
  uniformly, end statuses).
- agentevol: behavioral cloning on expert trajectories of BFCL's live_simple split, then
  explore -> learn iterations on live_simple instructions BC did not use, each from the base
  model on the demonstrations plus every explored success so far (each instruction's best),
  scored on BFCL simple_python in the ReAct prompt every stage uses. `base` is the model before
  BC, `bc` the BC stage and `trained` the last iteration. AgentEvol run 6 (training.md):
  `--splits simple_python --n 300 --seed 2`.

    python bench/training.py --json --trainer genenv [--epochs 3] [--n 100] [--generated-n 200] [--output-dir DIR]
    python bench/training.py --json --trainer genenv --arms real,real-uniform [--real-n 100] [--splits ""] [--generated-n 0]
    python bench/training.py --json --trainer agentevol [--iterations 1] [--n 100] [--explore-band 0.3,0.7]

Prints {"trainer", "env", "split", "n", "base": {success_rate, ci95_low, ci95_high}, "trained":
{...}, "gain", "gain_ci95_low", "gain_ci95_high", "wall_s", ...}; for genenv also "random",
"static" and "gain_vs_random" / "gain_vs_static" with their paired intervals, and the same on the
simulator's held-out generated split and on the real splits apart (`*_gen`, `*_real`, e.g.
"gain_vs_start_gen_ci95_low"); for agentevol "gain_vs_bc*" (the last iteration against BC) and
"iterations_vs_bc" (each iteration against BC, paired), and with --explore-band also "band" (the last iteration of
the run that explored in the band), "gain_band_vs_uniform" with its paired interval, and
"band_selection" (per iteration, the instructions taken in band and filled uniformly); the band run
starts from the uniform run's base, BC and iteration 1 ("band_shares_stages"), which it would only
repeat, since BC has no estimates to choose by. Several held-out splits are pooled into one task
list for the summary ("split" names them all); per-split rows are under "splits".
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from measure import log  # noqa: E402

from coevo.cli.signals import exit_cleanly_on_sigterm  # noqa: E402
from coevo.client.heldout import HeldoutRow, pooled_outcomes  # noqa: E402
from coevo.client.stats import paired_comparison, wilson_interval  # noqa: E402
from comparisons import ARM_MODELS, ITERATION_VS_BC, KINDS, agentevol_pairs, genenv_pairs  # noqa: E402


def rate(outcomes: Sequence[float]) -> dict[str, float]:
    low, high = wilson_interval(int(sum(outcomes)), len(outcomes))
    return {"success_rate": sum(outcomes) / len(outcomes), "ci95_low": low, "ci95_high": high}


def gain(before: Sequence[float], after: Sequence[float], prefix: str = "gain") -> dict[str, Any]:
    """after - before on the same tasks: the difference, its paired-bootstrap 95% interval and
    McNemar's exact p-value."""
    c = paired_comparison(before, after)
    return {prefix: c.difference, f"{prefix}_ci95_low": c.ci95_low, f"{prefix}_ci95_high": c.ci95_high,
            f"{prefix}_mcnemar_p": c.mcnemar_p, f"{prefix}_only_after": c.only_after,
            f"{prefix}_only_before": c.only_before}  # fmt: skip


def by_kind(models: dict[str, Any]) -> dict[str, Any]:
    """Each model's rate on the generated and the real held-out tasks apart, as `<model>_gen` and
    `<model>_real` (the gains on them are genenv_pairs' `*_gen`, `*_real`)."""
    report: dict[str, Any] = {}
    for kind, wanted in KINDS.items():
        outcomes = {name: pooled_outcomes([r for r in result.rows if wanted(r)]) for name, result in models.items()}
        if not outcomes["trained"]:
            continue
        report.update({f"{name}_{kind}": rate(values) for name, values in outcomes.items()})
        report[f"n_{kind}"] = len(outcomes["trained"])
    return report


def real_env_rates(models: dict[str, Any], real_env: str) -> dict[str, Any]:
    """Each model's rate on the real env's own held-out split (`<model>_<real_env>`, e.g.
    "real_apibank"; the real-task arms' gains on it are genenv_pairs' `*_<real_env>`)."""
    outcomes = {name: pooled_outcomes([r for r in result.rows if r.env == real_env]) for name, result in models.items()}
    if not outcomes["start"]:
        return {}
    return {**{f"{name}_{real_env}": rate(values) for name, values in outcomes.items()},
            f"n_{real_env}": len(outcomes["start"])}  # fmt: skip


def per_split(models: dict[str, Sequence[HeldoutRow]]) -> list[dict[str, Any]]:
    return [{"model": name, **row.metrics()} for name, rows in models.items() for row in rows]


# ---------------------------------------------------------------------------- GenEnv
def run_genenv(args: argparse.Namespace) -> dict[str, Any]:
    from coevo.client.launcher import ServerSpec, launch_local
    from coevo.models.checkpoints import default_model_dir
    from coevo.genenv.config import REAL_ARMS, GenEnvConfig, preset
    from coevo.genenv.heldout import HeldoutResult
    from coevo.genenv.trainer import GenEnvTrainer

    arms = tuple(args.arms.split(","))
    overrides = GenEnvConfig.parse_args([f"--set={item}" for item in args.set])
    splits = [f"bfcl:{s}:{args.n}" for s in args.splits]
    if args.generated_n > 0:
        splits.append(f"simulator:heldout:{args.generated_n}")
    out = Path(args.output_dir or "runs/bench-training-genenv")
    out.mkdir(parents=True, exist_ok=True)
    servers: list[Any] = ["bfcl"] if args.splits else []
    if args.generated_n > 0:  # its held-out split holds out combinations of the run's families
        servers.append(ServerSpec("simulator", {"families": args.families}))
    real = preset("cpu-demo", **{k: v for k, v in overrides.items() if k.startswith("real_")})
    if set(arms) & set(REAL_ARMS) and args.real_n > 0:
        # The real env's held-out split, on the server the real-task arms also train on (its
        # train split), in the one-reply episodes they train on.
        splits.append(f"{real.real_env}:{args.real_split}:{args.real_n}")
        servers.append(ServerSpec(real.real_env, dict(real.real_options)))
    with launch_local(servers, log_dir=str(out)) as urls:
        config = preset(
            "cpu-demo", output_dir=str(out), epochs=args.epochs, seed=args.seed, heldout=tuple(splits),
            heldout_urls=dict(urls), cpu_threads=args.threads, families=tuple(args.families.split(",")),
            arms=arms,
        ).replace(**overrides)  # fmt: skip
        trainer = GenEnvTrainer(config)
        base_file = out / "heldout" / "base.json"
        if base_file.exists():
            base = HeldoutResult.load(base_file)
        else:
            from coevo.genenv.heldout import AgentHeldout

            t0 = time.time()
            base = AgentHeldout.for_run(config, urls).evaluate(default_model_dir())
            base.save(base_file, arm="base", model="smollm2-135m")
            log(f"base model: {rate(pooled_outcomes(base.rows))} ({time.time() - t0:.0f}s)")
        trainer.run()
    last = config.epochs - 1
    start = HeldoutResult.load(out / "heldout" / "start.json")
    models = {"base": base, "start": start}
    for arm, name in ARM_MODELS.items():
        if arm in config.arms:
            models[name] = HeldoutResult.load(out / "heldout" / f"{arm}-epoch-{last:03d}.json")
    outcomes = {name: pooled_outcomes(result.rows) for name, result in models.items()}
    report: dict[str, Any] = {
        "trainer": "genenv",
        "env": ",".join(sorted({row.env for row in base.rows})),
        "split": ",".join(splits),
        "n": len(outcomes["base"]),
        "epochs": config.epochs,
        "seed": config.seed,
        "arms": list(config.arms),
        "families": list(config.families),
        "env_backend": config.env_backend,
        "overrides": args.set,
        **{name: rate(values) for name, values in outcomes.items()},
    }
    real_env = config.real_env if set(config.arms) & set(REAL_ARMS) else None
    if "trained" in outcomes:
        report.update(by_kind(models))
    if real_env is not None:
        report.update(real_env_rates(models, real_env))
    for key, (before, after) in genenv_pairs({name: r.rows for name, r in models.items()}, real_env).items():
        report.update(gain(before, after, key))
    if real_env is not None:
        report["real_selection"] = [
            {k: r.get(k) for k in ("arm", "epoch", "real_in_band", "real_unseen_fill", "real_out_of_band_fill",
                                   "real_estimated", "real_end_statuses")}
            for r in trainer.metrics() if r["arm"] in REAL_ARMS
        ]  # fmt: skip
    report["splits"] = per_split({name: result.rows for name, result in models.items()})
    report["by_epoch"] = [
        {k: r[k] for k in ("arm", "epoch", "split", "n", "success_rate", "ci95_low", "ci95_high")}
        for r in trainer.heldout_metrics()
    ]
    report["generated"] = [
        {k: r[k] for k in ("arm", "epoch", "success_rate", "in_band_fraction", "elapsed_s")} for r in trainer.metrics()
    ]
    return report


# ---------------------------------------------------------------------------- AgentEvol
def _agentevol_run(args: argparse.Namespace, out: Path, explore_band: str | None) -> dict[str, Any]:
    """One AgentEvol run; {"config", "stages", "results", "outcomes", "rows"} of its held-out scores."""
    from coevo.agentevol.config import AgentEvolConfig, from_preset
    from coevo.agentevol.trainer import AgentEvolTrainer, stage_names

    settings: dict[str, Any] = dict(
        output_dir=str(out), envs=["bfcl"], bc_split=["live_simple"], explore_split=["live_simple"],
        heldout=[f"bfcl:{s}:{args.n}" for s in args.splits], iterations=args.iterations, seed=args.seed,
        bc_tasks=args.bc_tasks, explore_tasks=args.explore_tasks, samples_per_task=2, max_rounds=2,
        max_length=1536, max_prompt_tokens=1536, max_new_tokens=96, show_available_actions=False, model=args.model,
        # The paper's setting: every iteration learns from the base model, on D_s and every explored
        # success so far (filtered: each instruction's best; de-duplicated), as many epochs as BC.
        restart_from_base=True, accumulate_explored=True, epochs=3.0, explore_band=explore_band, objective="filter",
    )  # fmt: skip
    settings.update(AgentEvolConfig.parse_args([f"--set={item}" for item in args.set]))
    config = from_preset("cpu-demo", **settings)
    evol = AgentEvolTrainer(config, log=log)
    rows = evol.run()
    stages = stage_names(config.iterations)
    results = {stage: _agentevol_rows(evol.layout.eval_file(stage)) for stage in stages}
    outcomes = {stage: pooled_outcomes(held) for stage, held in results.items()}
    return {"config": config, "stages": stages, "results": results, "outcomes": outcomes, "rows": rows}


def run_agentevol(args: argparse.Namespace) -> dict[str, Any]:
    """The uniform run; with --explore-band also a run exploring in that band (its own directory,
    same seed, so the same BC data and held-out task lists), compared on the same tasks."""
    out = Path(args.output_dir or "runs/bench-training-agentevol")
    split = args.splits[0]
    run = _agentevol_run(args, out, None)
    config, stages, outcomes = run["config"], run["stages"], run["outcomes"]
    final = stages[-1]
    pairs = agentevol_pairs(outcomes, stages)
    report: dict[str, Any] = {
        "trainer": "agentevol", "env": "bfcl", "split": ",".join(args.splits), "n": len(outcomes["base"]),
        "bc_split": "live_simple", "iterations": config.iterations, "seed": config.seed, "first_split": split,
        "bc_tasks": config.bc_tasks, "explore_tasks": config.explore_tasks, "objective": config.objective,
        "overrides": args.set, "base": rate(outcomes["base"]), "bc": rate(outcomes["bc"]), "trained": rate(outcomes[final]),
        **{k: v for key in ("gain", "gain_vs_bc", "gain_bc") for k, v in gain(*pairs[key], key).items()},
        "splits": per_split(run["results"]),
        "curve": [{"stage": stage, **rate(outcomes[stage])} for stage in stages],
        # every iteration against BC, paired: the curve's steps, not only its end
        "iterations_vs_bc": [
            {"stage": stage, **gain(*pairs[ITERATION_VS_BC + stage], "gain_vs_bc")} for stage in stages[2:]
        ],
    }  # fmt: skip
    if args.explore_band:
        from coevo.agentevol.branch import branch_run

        # Iteration 1's explorer (BC) has no estimates on the exploration split, so the band run's
        # iteration 1 is the uniform run's: the band run starts from it (agentevol/branch.py).
        shared = branch_run(out, out / "band", through="iter1") if config.iterations >= 2 else []
        band = _agentevol_run(args, out / "band", args.explore_band)
        band_final = band["outcomes"][final]
        report.update(
            explore_band=args.explore_band, band=rate(band_final),
            **gain(*agentevol_pairs(outcomes, stages, band["outcomes"])["gain_band_vs_uniform"], "gain_band_vs_uniform"),
            band_curve=[{"stage": stage, **rate(band["outcomes"][stage])} for stage in stages],
            band_shares_stages=shared,
            band_selection=[
                {k: row.get(k) for k in ("stage", "explore_in_band", "explore_uniform_fill")}
                for row in band["rows"] if row["stage"].startswith("iter")
            ],
        )  # fmt: skip
    return report


def _agentevol_rows(path: Path) -> list[HeldoutRow]:
    document = json.loads(path.read_text())
    return [HeldoutRow(**row) for row in document["heldout"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("--trainer", choices=("genenv", "agentevol"), default="genenv")
    parser.add_argument(
        "--splits", default="simple_python,multiple", help='BFCL held-out splits, comma-separated ("": none)'
    )
    parser.add_argument("--n", type=int, default=100, help="tasks per held-out split (a fixed seeded list)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=3, help="genenv: epochs of each arm")
    parser.add_argument(
        "--arms", default="genenv,random,static",
        help="genenv: arms, in the order they run (real, real-uniform: a real env's train split, see docs/genenv.md)",
    )  # fmt: skip
    parser.add_argument(
        "--generated-n", type=int, default=200, help="genenv: tasks of the simulator's held-out split (0: none)"
    )
    parser.add_argument("--threads", type=int, default=0, help="genenv: torch CPU threads (0: chosen per epoch)")
    parser.add_argument(
        "--real-n", type=int, default=100,
        help="genenv with real or real-uniform arms: tasks of the real env's held-out split (0: none)",
    )  # fmt: skip
    parser.add_argument(
        "--real-split", default="test", help="genenv real-task arms: the real env's held-out split they are scored on"
    )
    # BFCL asks for calls: with cpu-demo's arithmetic family beside them, the warmed agent
    # answered BFCL requests with computed numbers ("25" for a triangle's area), 0 of 20.
    parser.add_argument(
        "--families", default="function_calling", help="genenv: simulator task families, comma-separated"
    )
    parser.add_argument("--iterations", type=int, default=2, help="agentevol: explore -> learn iterations")
    # AgentEvol run 6's sizes (bench/results/training.md): few demonstrations, a broad exploration set.
    parser.add_argument("--bc-tasks", type=int, default=32, help="agentevol: expert trajectories for BC")
    parser.add_argument("--explore-tasks", type=int, default=112, help="agentevol: instructions explored per iteration")
    parser.add_argument(
        "--explore-band",
        default=None,
        help="agentevol: also run exploring in this band (LOW,HIGH or ALPHA/HALF_WIDTH) and compare it with the "
        "uniform run on the same held-out tasks (band, gain_band_vs_uniform)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any field of the trainer's config over the bench's settings (repeatable), e.g. env_backend=llm "
        "(genenv) or objective=filter (agentevol)",
    )
    parser.add_argument(
        "--model", default="smollm2", help="agentevol: base model (smollm2, tiny for a smoke run, or a directory)"
    )
    parser.add_argument("--output-dir", default=None, help="run directory (re-running resumes it)")
    args = parser.parse_args()
    args.splits = [s.strip() for s in args.splits.split(",") if s.strip()]
    exit_cleanly_on_sigterm()  # a stopped run still stops the env servers it started
    # The trainers' progress (epochs, stages, held-out rows) on stderr; stdout stays the JSON.
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    started = time.time()
    with contextlib.redirect_stdout(sys.stderr):  # trainers' progress prints; stdout is the JSON
        report = run_genenv(args) if args.trainer == "genenv" else run_agentevol(args)
    report["wall_s"] = round(time.time() - started, 1)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for key in ("base", "start", "bc", "trained", "random", "real", "real_uniform"):
            if key in report:
                r = report[key]
                print(f"{key:12s} {r['success_rate']:.3f} [{r['ci95_low']:.3f}, {r['ci95_high']:.3f}] n={report['n']}")
        for key in ("gain", "gain_real_vs_uniform"):
            if key in report:
                print(f"{key} {report[key]:+.3f} [{report[key + '_ci95_low']:+.3f}, {report[key + '_ci95_high']:+.3f}]")


if __name__ == "__main__":
    main()
