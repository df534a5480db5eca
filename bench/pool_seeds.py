"""Pool several `bench/training.py` runs that differ only in `--seed`: every paired comparison
the single-run report makes (bench/comparisons.py), per seed and pooled over the seeds.

    python bench/pool_seeds.py --json RUN_DIR RUN_DIR [RUN_DIR ...] [--resamples 10000]

Each RUN_DIR is one run's `--output-dir` (GenEnv: config.json and heldout/*.json; AgentEvol:
config.json, eval/<stage>.json and, with --explore-band, band/). The per-task held-out outcomes
there are what the single-run report paired; this reads the same files, so a pooled comparison
is the sum of the runs' own, nothing re-scored.

For each comparison ("gain_vs_random_gen", "gain_real_vs_uniform", "gain_vs_bc_iter2", ...):
"per_seed" (each seed's difference, n, McNemar p and paired interval, the interval drawn with
numpy, so it may differ from the run's own report by resampling noise), then the pooled "difference" (task-weighted), "ci95_low"/"ci95_high" from a two-level bootstrap
(seeds with replacement, then tasks within each drawn seed; coevo.client.seed_pool), the
"naive_ci95_*" that resampling the concatenated tasks would give (narrower when the seeds
disagree: not the interval to quote), "mcnemar_p" (discordant pairs summed over seeds, one exact
binomial test), and "seeds_above_zero" / "seeds_below_zero".

Refuses runs whose settings differ in anything but the seed (and where they ran: output_dir,
URLs, threads), two runs with one seed, and a run whose models were scored on different held-out
task lists. The task lists of different seeds may differ (they are drawn by seed): the
bootstrap's seed level is what carries that.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from comparisons import ARM_MODELS, Pair, agentevol_pairs, genenv_pairs  # noqa: E402

from coevo.client.heldout import HeldoutRow, pooled_outcomes  # noqa: E402
from coevo.client.seed_pool import PooledComparison, pooled_comparison  # noqa: E402


class PoolError(ValueError):
    """The directories cannot be pooled (settings differ, a run is unfinished, task lists differ)."""


#: Config fields that say where or how fast a run ran, not what it measured: they may differ.
WHERE_IT_RAN = frozenset({"output_dir", "seed"})
#: RESUMABLE_CHANGES that do change what is compared (the last epoch, the arms, the iterations).
COMPARED = frozenset({"epochs", "arms", "iterations"})


@dataclass(frozen=True)
class Scored:
    """One model's held-out rows and the task lists they were scored on."""

    rows: list[HeldoutRow]
    task_lists: dict[str, list[str]]

    @classmethod
    def load(cls, path: Path, rows_key: str = "rows") -> Scored:
        if not path.is_file():
            raise PoolError(f"{path} is missing: is the run finished?")
        document = json.loads(path.read_text())
        return cls([HeldoutRow(**row) for row in document[rows_key]], document["task_lists"])


@dataclass(frozen=True)
class Run:
    """One run directory: its trainer, config and every comparison's (before, after) outcomes."""

    root: Path
    trainer: str
    config: dict[str, Any]
    pairs: dict[str, Pair]

    @property
    def seed(self) -> int:
        return int(self.config["seed"])


def trainer_of(root: Path) -> str:
    if (root / "heldout" / "start.json").is_file():
        return "genenv"
    if (root / "eval" / "base.json").is_file():
        return "agentevol"
    raise PoolError(f"{root} holds no GenEnv (heldout/start.json) or AgentEvol (eval/base.json) held-out scores")


def same_task_lists(root: Path, scored: Mapping[str, Scored]) -> None:
    """Refuse a run whose models were scored on different tasks: their outcomes would not pair."""
    (first, reference), *rest = scored.items()
    for name, result in rest:
        if result.task_lists != reference.task_lists:
            raise PoolError(f"{root}: {name} was scored on other held-out tasks than {first}")
        shape = [(r.env, r.split, r.n) for r in result.rows]
        if shape != [(r.env, r.split, r.n) for r in reference.rows]:
            raise PoolError(f"{root}: {name}'s held-out rows ({shape}) are not {first}'s")


def load_genenv(root: Path, config: dict[str, Any]) -> dict[str, Pair]:
    from coevo.genenv.config import REAL_ARMS

    heldout = root / "heldout"
    last = int(config["epochs"]) - 1
    scored = {"start": Scored.load(heldout / "start.json")}
    if (heldout / "base.json").is_file():  # bench/training.py scores the base model; the trainer does not
        scored["base"] = Scored.load(heldout / "base.json")
    for arm, name in ARM_MODELS.items():
        if arm in config["arms"]:
            scored[name] = Scored.load(heldout / f"{arm}-epoch-{last:03d}.json")
    same_task_lists(root, scored)
    real_env = config["real_env"] if set(config["arms"]) & set(REAL_ARMS) else None
    return genenv_pairs({name: s.rows for name, s in scored.items()}, real_env)


def load_agentevol(root: Path, config: dict[str, Any]) -> dict[str, Pair]:
    from coevo.agentevol.trainer import stage_names

    stages = stage_names(int(config["iterations"]))

    def outcomes(run: Path) -> dict[str, list[float]]:
        scored = {stage: Scored.load(run / "eval" / f"{stage}.json", "heldout") for stage in stages}
        same_task_lists(run, scored)
        return {stage: pooled_outcomes(s.rows) for stage, s in scored.items()}

    uniform = outcomes(root)
    band = None
    if (root / "band" / "config.json").is_file():
        band_config = json.loads((root / "band" / "config.json").read_text())
        if int(band_config["iterations"]) != int(config["iterations"]):
            raise PoolError(
                f"{root}/band ran {band_config['iterations']} iterations, the uniform run {config['iterations']}"
            )
        band = outcomes(root / "band")
        same_task_lists(root, {"uniform": Scored.load(root / "eval" / f"{stages[-1]}.json", "heldout"),
                               "band": Scored.load(root / "band" / "eval" / f"{stages[-1]}.json", "heldout")})  # fmt: skip
    return agentevol_pairs(uniform, stages, band)


def load_run(root: Path) -> Run:
    if not (root / "config.json").is_file():
        raise PoolError(f"{root} has no config.json: not a run directory")
    trainer = trainer_of(root)
    config = json.loads((root / "config.json").read_text())
    load = load_genenv if trainer == "genenv" else load_agentevol
    return Run(root, trainer, config, load(root, config))


def settings(run: Run) -> dict[str, Any]:
    """What a run measured with: its config without the seed and where it ran (and its band
    run's, as "band.<field>")."""
    from coevo.agentevol.config import AgentEvolConfig
    from coevo.genenv.config import GenEnvConfig

    resumable = (GenEnvConfig if run.trainer == "genenv" else AgentEvolConfig).RESUMABLE_CHANGES
    free = WHERE_IT_RAN | (resumable - COMPARED)
    mine = {k: v for k, v in run.config.items() if k not in free}
    band = run.root / "band" / "config.json"
    if run.trainer == "agentevol" and band.is_file():  # the band run's own settings (explore_band)
        mine.update({f"band.{k}": v for k, v in json.loads(band.read_text()).items() if k not in free})
    return mine


def check_poolable(runs: Sequence[Run]) -> None:
    if len(runs) < 2:
        raise PoolError("pooling needs at least two run directories")
    trainers = {run.trainer for run in runs}
    if len(trainers) > 1:
        raise PoolError(f"the runs are of different trainers: {sorted(trainers)}")
    seeds = [run.seed for run in runs]
    if len(set(seeds)) < len(seeds):
        raise PoolError(f"two runs share a seed ({seeds}): pooled seeds must differ")
    reference = settings(runs[0])
    for run in runs[1:]:
        if set(run.pairs) != set(runs[0].pairs):  # e.g. a band run, or base.json, in one directory only
            raise PoolError(f"{run.root} makes other comparisons than {runs[0].root}")
        mine = settings(run)
        differ = sorted(k for k in reference.keys() | mine.keys() if reference.get(k) != mine.get(k))
        if differ:
            raise PoolError(f"{run.root} differs from {runs[0].root} in {', '.join(differ)}, not only the seed")


def comparison_report(seeds: Sequence[int], pooled: PooledComparison) -> dict[str, Any]:
    return {
        "per_seed": [
            {"seed": seed, "difference": c.difference, "n": c.n, "ci95_low": c.ci95_low, "ci95_high": c.ci95_high,
             "mcnemar_p": c.mcnemar_p, "only_after": c.only_after, "only_before": c.only_before}
            for seed, c in zip(seeds, pooled.per_seed)
        ],
        "n": pooled.n, "difference": pooled.difference, "ci95_low": pooled.ci95_low, "ci95_high": pooled.ci95_high,
        "naive_ci95_low": pooled.naive_ci95_low, "naive_ci95_high": pooled.naive_ci95_high,
        "mcnemar_p": pooled.mcnemar_p, "only_after": pooled.only_after, "only_before": pooled.only_before,
        "seeds_above_zero": sum(c.difference > 0 for c in pooled.per_seed),
        "seeds_below_zero": sum(c.difference < 0 for c in pooled.per_seed),
    }  # fmt: skip


def pool(dirs: Sequence[str | Path], *, resamples: int = 10_000, bootstrap_seed: int = 0) -> dict[str, Any]:
    """The pooled report of the run directories `dirs` (see the module's docstring)."""
    runs = [load_run(Path(d)) for d in dirs]
    check_poolable(runs)
    seeds = [run.seed for run in runs]
    comparisons = {
        key: comparison_report(
            seeds, pooled_comparison([run.pairs[key] for run in runs], resamples=resamples, seed=bootstrap_seed)
        )
        for key in runs[0].pairs
    }
    return {
        "trainer": runs[0].trainer, "runs": [str(run.root) for run in runs], "seeds": seeds,
        "resamples": resamples, "bootstrap_seed": bootstrap_seed, "comparisons": comparisons,
    }  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dirs", nargs="+", help="run directories (each run's --output-dir)")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples")
    parser.add_argument("--bootstrap-seed", type=int, default=0, help="the bootstrap's RNG seed")
    args = parser.parse_args(argv)
    try:
        report = pool(args.dirs, resamples=args.resamples, bootstrap_seed=args.bootstrap_seed)
    except PoolError as exc:
        print(f"pool_seeds: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{report['trainer']}: seeds {report['seeds']}")
    for key, c in report["comparisons"].items():
        each = " ".join(f"{s['difference']:+.3f}" for s in c["per_seed"])
        print(f"{key:32s} {c['difference']:+.3f} [{c['ci95_low']:+.3f}, {c['ci95_high']:+.3f}] p={c['mcnemar_p']:.2g} "
              f"n={c['n']}  per seed: {each}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
