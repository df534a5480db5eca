"""How well does the parametric pi_env update track a learning agent? A simulation of the GenEnv
loop's environment side, for choosing the update's settings without hour-long model runs.

The environment side is the real code: `ParametricPolicy` samples the function-calling knobs
and is updated by `fit_weighted` (RWR on the in-band samples of the last `window` epochs,
KL coefficient, KL cap), and `coevo.genenv.curriculum` gives p_hat, R_env and the band. Only
the agent is a model: a task's success probability is sigmoid(slope * (skill - difficulty) +
task noise), with an additive difficulty per knob value, and the skill grows each epoch in
proportion to the share of tasks whose group had mixed outcomes (the only ones GRPO learns
from). The model's numbers are assumptions; use the results to rank update settings against
each other and against the frozen simulator (GenEnv-Random), not to predict a real run.

    python bench/genenv_curriculum.py --json
    python bench/genenv_curriculum.py --setting 2:0.3:0.3 --setting 0:0.05:0.5 --slope 1.5
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
from typing import Any

import numpy as np

from coevo.simulator.families.function_calling import TOOLS_BY_NAME
from coevo.simulator.policies.parametric import ParametricPolicy
from coevo.genenv import curriculum
from coevo.genenv.config import GenEnvConfig, preset

FAMILY = "function_calling"
#: Additive difficulty (logit units) of each knob value; the easiest value of each ordered knob is 0.
DIFFICULTY = {
    "n_tools": {1: 0.0, 2: 0.7, 4: 1.5, 8: 2.5},
    "n_args": {1: 0.0, 2: 1.5, 3: 2.5},
    "signature": {"minimal": 0.0, "full": 0.5},
    "phrasing": {"explicit": 0.0, "natural": 0.3},
    "numbers": {"digits": 0.0, "words": 1.0},
    # Target tools spread evenly over 1.5 logits (in cpu-demo run 3 the mean p_hat by tool ranged
    # from 0.17 to 0.52), centred on 0 so that the average task is as hard as without this knob.
    "tool": {name: 1.5 * (i / (len(TOOLS_BY_NAME) - 1) - 0.5) for i, name in enumerate(TOOLS_BY_NAME)},
}


@dataclasses.dataclass(frozen=True)
class AgentModel:
    skill: float = 0.0
    slope: float = 3.0
    task_noise: float = 1.5
    #: Skill gained per epoch when every task's group had mixed outcomes.
    learn: float = 2.0


@dataclasses.dataclass(frozen=True)
class Setting:
    window: int
    kl_coef: float
    kl_cap: float
    #: env_rwr_average: "in_band" or "generated".
    average: str = "in_band"

    @classmethod
    def parse(cls, text: str) -> Setting:
        window, coef, cap, *average = text.split(":")
        if len(average) > 1 or (average and average[0] not in curriculum.RWR_AVERAGES):
            raise ValueError(f"the fourth field is one of {', '.join(curriculum.RWR_AVERAGES)}")
        return cls(int(window), float(coef), float(cap), *average)

    def __str__(self) -> str:
        return f"window {self.window}, KL coef {self.kl_coef}, cap {self.kl_cap}, averaged over {self.average}"


def run_arm(
    setting: Setting | None,
    seed: int,
    agent: AgentModel,
    epochs: int,
    tasks: int,
    group: int,
    cfg: GenEnvConfig,
    uniform_knobs: tuple[str, ...] = (),
) -> np.ndarray:
    """One arm (setting None: the frozen simulator); rows of (success rate, in-band fraction).
    `uniform_knobs` stay uniform after every update, as if pi_env could not choose them."""
    noise = np.random.default_rng(seed)
    draws = random.Random(seed)
    policy = ParametricPolicy([FAMILY])
    reference = policy.copy()
    skill, pool, rows = agent.skill, [], []
    for _ in range(epochs):
        knobs = [policy.sample(draws, FAMILY)[1] for _ in range(tasks)]
        p_hats = []
        for k in knobs:
            difficulty = sum(DIFFICULTY[name][value] for name, value in k.items())
            p = 1 / (1 + math.exp(-(agent.slope * (skill - difficulty) + noise.normal(0, agent.task_noise))))
            p_hats.append(noise.binomial(group, p) / group)
        band = curriculum.band_mask(p_hats, cfg.alpha, cfg.k_min)
        rows.append((float(np.mean(p_hats)), float(band.mean())))
        skill += agent.learn * float(np.mean([0 < p < 1 for p in p_hats]))
        pool.append(
            [
                ((FAMILY, k), float(curriculum.r_env(p, cfg.alpha, cfg.beta)), bool(flag))
                for k, p, flag in zip(knobs, p_hats, band)
            ]
        )
        if setting is None:
            continue
        recent = pool if setting.window <= 0 else pool[-setting.window :]
        window = [sample for epoch in recent for sample in epoch]
        at, weights, scale = curriculum.rwr_fit(
            [r for _, r, _ in window], [f for _, _, f in window], setting.average, cfg.rwr_lambda
        )
        kept = [window[i][0] for i in at]
        if kept:
            policy, _ = policy.fit_weighted(
                kept,
                weights,
                reference=reference,
                lr=cfg.param_lr,
                steps=cfg.param_steps,
                kl_coef=setting.kl_coef,
                kl_cap=setting.kl_cap,
                likelihood_scale=scale,
            )
            for knob in uniform_knobs:
                policy.logits[FAMILY][knob] = np.zeros_like(policy.logits[FAMILY][knob])
    return np.array(rows)


def summarise(runs: np.ndarray, random_runs: np.ndarray | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "success_by_epoch": runs[:, :, 0].mean(0).round(3).tolist(),
        "in_band_by_epoch": runs[:, :, 1].mean(0).round(3).tolist(),
        "mean_in_band": round(float(runs[:, :, 1].mean()), 4),
    }
    if random_runs is not None:  # how often this arm's last epoch is above / below Random's (same seed)
        end, random_end = runs[:, -1, 1], random_runs[:, -1, 1]
        out["end_above_random"] = round(float(np.mean(end > random_end)), 3)
        out["end_below_random"] = round(float(np.mean(end < random_end)), 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    defaults = preset("cpu-demo")
    parser.add_argument(
        "--setting",
        action="append",
        type=Setting.parse,
        help="window:kl_coef:kl_cap[:in_band|generated] (repeatable; default: the cpu-demo "
        "preset's, the same averaged over generated tasks, and the first settings)",
    )
    parser.add_argument("--runs", type=int, default=40, help="seeds per setting")
    parser.add_argument("--epochs", type=int, default=defaults.epochs)
    parser.add_argument("--tasks", type=int, default=defaults.tasks_per_epoch)
    parser.add_argument("--group", type=int, default=defaults.group_size)
    parser.add_argument("--skill", type=float, default=AgentModel.skill)
    parser.add_argument("--slope", type=float, default=AgentModel.slope)
    parser.add_argument("--task-noise", type=float, default=AgentModel.task_noise)
    parser.add_argument("--learn", type=float, default=AgentModel.learn)
    parser.add_argument(
        "--rwr-lambda",
        type=float,
        default=defaults.rwr_lambda,
        help="the RWR weights' inverse temperature (default: the cpu-demo preset's)",
    )
    parser.add_argument(
        "--uniform-knob",
        action="append",
        default=[],
        choices=sorted(DIFFICULTY),
        help="a knob pi_env may not learn (repeatable), e.g. tool, to measure what choosing it is worth",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    settings = args.setting or [
        Setting(defaults.env_pool_window, defaults.env_kl_coef, defaults.env_kl_cap, defaults.env_rwr_average),
        *(
            Setting(defaults.env_pool_window, defaults.env_kl_coef, defaults.env_kl_cap, average)
            for average in curriculum.RWR_AVERAGES
            if average != defaults.env_rwr_average
        ),
        Setting(0, 0.05, 0.5),  # the first settings: the whole pool, weak KL, a wide cap
    ]
    agent = AgentModel(args.skill, args.slope, args.task_noise, args.learn)
    defaults = dataclasses.replace(defaults, rwr_lambda=args.rwr_lambda)
    shape = (args.epochs, args.tasks, args.group, defaults, tuple(args.uniform_knob))
    random_runs = np.array([run_arm(None, seed, agent, *shape) for seed in range(args.runs)])
    result: dict[str, Any] = {
        "agent_model": dataclasses.asdict(agent),
        "runs": args.runs,
        "epochs": args.epochs,
        "tasks": args.tasks,
        "group": args.group,
        "uniform_knobs": args.uniform_knob,
        "rwr_lambda": args.rwr_lambda,
        "random": summarise(random_runs),
        "settings": {},
    }
    for setting in settings:
        runs = np.array([run_arm(setting, seed, agent, *shape) for seed in range(args.runs)])
        result["settings"][str(setting)] = summarise(runs, random_runs)
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"{args.runs} runs, {args.epochs} epochs x {args.tasks} tasks x {args.group} rollouts")
    for name, row in [("GenEnv-Random", result["random"]), *result["settings"].items()]:
        print(f"{name:40s} in band by epoch {row['in_band_by_epoch']}  mean {row['mean_in_band']:.3f}")
        if name != "GenEnv-Random":
            print(
                f"{'':40s} success by epoch {row['success_by_epoch']}  end above Random "
                f"{row['end_above_random']:.2f}, below {row['end_below_random']:.2f}"
            )


if __name__ == "__main__":
    main()
