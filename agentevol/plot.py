"""The picture of a run: evaluation success rate, accepted-action rate and mean reward after
each stage (the accepted-action rate shows a small model learning the env's language before it
solves tasks)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def plot_success(rows: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")  # files only; no display on servers
    import matplotlib.pyplot as plt

    stages = [r["stage"] for r in rows]
    success = [100 * r["success_rate"] for r in rows]
    reward = [r["mean_reward"] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=120)
    ax.plot(stages, success, marker="o", color="tab:blue", label="held-out success (%), 95% CI")
    if all("ci95_low" in r for r in rows):  # Wilson intervals of the held-out success rate
        low = [s - 100 * r["ci95_low"] for s, r in zip(success, rows)]
        high = [100 * r["ci95_high"] - s for s, r in zip(success, rows)]
        ax.errorbar(stages, success, yerr=[low, high], fmt="none", ecolor="tab:blue", alpha=0.5, capsize=3)
    for x, y in zip(stages, success):
        ax.annotate(f"{y:.1f}", (x, y), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    accepted = [r.get("accepted_action_rate") for r in rows]
    if any(a is not None for a in accepted):
        points = [(x, 100 * a) for x, a in zip(stages, accepted) if a is not None]
        ax.plot([x for x, _ in points], [y for _, y in points], marker="^", color="tab:green",
                label="accepted actions (%)")  # fmt: skip
    ax.set_ylabel("rate (%)")
    ax.set_ylim(0, max(100.0, max(success, default=0) + 10))
    ax.set_xlabel("stage")
    twin = ax.twinx()
    twin.plot(stages, reward, marker="s", linestyle="--", color="tab:orange", label="mean reward")
    twin.set_ylabel("mean reward")
    twin.set_ylim(bottom=min(0.0, min(reward, default=0.0)), top=max(1.0, max(reward, default=0.0) * 1.1))
    n = rows[0].get("eval_n") if rows else None
    ax.set_title(f"AgentEvol: held-out evaluation after each stage{f' (n = {n})' if n else ''}")
    lines = ax.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    labels = ax.get_legend_handles_labels()[1] + twin.get_legend_handles_labels()[1]
    ax.legend(lines, labels, loc="upper left", fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
