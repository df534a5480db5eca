"""The paired comparisons a training bench report makes, named once: `training.py` reports each
for one run (`<key>`, `<key>_ci95_low`, ...) and `pool_seeds.py` pools each over runs that
differ only in their seed, so a comparison added here shows up in both under one name.

Each comparison is a key -> (before, after): the per-task held-out outcomes of two models on
the same tasks, in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from coevo.client.heldout import HeldoutRow, pooled_outcomes

Pair = tuple[list[float], list[float]]

#: Held-out task kinds GenEnv is scored on: the simulator's held-out generated split, and real benchmarks.
KINDS: dict[str, Callable[[HeldoutRow], bool]] = {
    "gen": lambda row: row.env == "simulator",
    "real": lambda row: row.env != "simulator",
}

#: The report's name of each arm's last epoch (`trained` is GenEnv's, as before the other arms).
ARM_MODELS = {"genenv": "trained", "random": "random", "static": "static", "real": "real",
              "real-uniform": "real_uniform"}  # fmt: skip


def _subset(models: Mapping[str, Sequence[HeldoutRow]], wanted: Callable[[HeldoutRow], bool]) -> dict[str, list[float]]:
    return {name: pooled_outcomes([r for r in rows if wanted(r)]) for name, rows in models.items()}


def genenv_pairs(models: Mapping[str, Sequence[HeldoutRow]], real_env: str | None = None) -> dict[str, Pair]:
    """GenEnv's comparisons, from each model's held-out rows (`start`, and where scored `base`,
    `trained`, `random`, `static`, `real`, `real_uniform`):

    - over every held-out task: "gain_start" (base -> start), "gain" (base -> trained),
      "gain_vs_start", "gain_vs_random", "gain_vs_static" (each -> trained);
    - the same three on the generated and the real held-out tasks apart (`*_gen`, `*_real`);
    - with `real_env` (the real-task arms' env) and a real arm: "gain_real_vs_start",
      "gain_real_uniform_vs_start", "gain_real_vs_uniform", pooled and on `real_env`'s split
      alone (`*_<real_env>`)."""
    pairs: dict[str, Pair] = {}
    every = _subset(models, lambda row: True)
    if "base" in every:
        pairs["gain_start"] = (every["base"], every["start"])
    if "trained" in every:
        if "base" in every:
            pairs["gain"] = (every["base"], every["trained"])
        for before in ("start", "random", "static"):
            if before in every:
                pairs[f"gain_vs_{before}"] = (every[before], every["trained"])
        for kind, wanted in KINDS.items():
            outcomes = _subset(models, wanted)
            if outcomes["trained"]:
                for before in ("start", "random", "static"):
                    if before in outcomes:
                        pairs[f"gain_vs_{before}_{kind}"] = (outcomes[before], outcomes["trained"])
    if real_env is not None and {"real", "real_uniform"} & set(models):
        subsets = (("", lambda row: True), (f"_{real_env}", lambda row: row.env == real_env))
        for suffix, wanted in subsets:
            outcomes = _subset(models, wanted)
            if not outcomes["start"]:
                continue
            for name in ("real", "real_uniform"):
                if name in outcomes:
                    pairs[f"gain_{name}_vs_start{suffix}"] = (outcomes["start"], outcomes[name])
            if "real" in outcomes and "real_uniform" in outcomes:
                pairs[f"gain_real_vs_uniform{suffix}"] = (outcomes["real_uniform"], outcomes["real"])
    return pairs


#: Key prefix of one iteration against BC ("gain_vs_bc_iter1").
ITERATION_VS_BC = "gain_vs_bc_"


def agentevol_pairs(
    outcomes: Mapping[str, list[float]], stages: Sequence[str], band: Mapping[str, list[float]] | None = None
) -> dict[str, Pair]:
    """AgentEvol's comparisons, from each stage's pooled held-out outcomes (`stages`: base, bc,
    iter1, ...): "gain" (base -> last), "gain_vs_bc" (BC -> last), "gain_bc" (base -> BC), each
    iteration against BC ("gain_vs_bc_iter1", ...), and with the band run's outcomes
    "gain_band_vs_uniform" (the uniform run's last iteration -> the band run's)."""
    final = stages[-1]
    pairs: dict[str, Pair] = {
        "gain": (outcomes["base"], outcomes[final]),
        "gain_vs_bc": (outcomes["bc"], outcomes[final]),
        "gain_bc": (outcomes["base"], outcomes["bc"]),
        **{f"{ITERATION_VS_BC}{stage}": (outcomes["bc"], outcomes[stage]) for stage in stages[2:]},
    }
    if band is not None:
        pairs["gain_band_vs_uniform"] = (outcomes[final], band[final])
    return pairs
