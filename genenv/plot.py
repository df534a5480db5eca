"""The GenEnv figure: success on generated tasks by epoch against the alpha band, and the
fraction of tasks inside the band — each arm side by side."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

ARM_STYLE = {
    "genenv": ("GenEnv", "tab:blue", "o"),
    "random": ("GenEnv-Random", "tab:orange", "s"),
    "static": ("Static augmentation", "tab:gray", "^"),
}


def plot_metrics(
    rows: list[dict[str, Any]], path: Path, alpha: float, k_min: float, heldout: list[dict[str, Any]] | None = None
) -> Path | None:
    """Success and in-band fraction on generated tasks by epoch; with held-out rows, a third
    panel of held-out success (95% interval) per split, epoch 0 being the starting agent."""
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_arm: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_arm[row["arm"]].append(row)
    fig, axes = plt.subplots(1, 3 if heldout else 2, figsize=(16.5 if heldout else 11, 4.2))
    left, right = axes[0], axes[1]
    if heldout:
        _plot_heldout(axes[2], heldout)
    left.axhspan(alpha - k_min, alpha + k_min, color="tab:green", alpha=0.15, label=f"band alpha±{k_min:g}")
    left.axhline(alpha, color="tab:green", lw=1, ls="--")
    for arm, arm_rows in by_arm.items():
        arm_rows.sort(key=lambda r: r["epoch"])
        label, color, marker = ARM_STYLE.get(arm, (arm, None, "x"))
        epochs = [r["epoch"] + 1 for r in arm_rows]
        left.plot(epochs, [r["success_rate"] for r in arm_rows], marker=marker, color=color, label=label)
        right.plot(epochs, [r["in_band_fraction"] for r in arm_rows], marker=marker, color=color, label=label)
    left.set(xlabel="epoch", ylabel="agent success on generated tasks", ylim=(0, 1),
             title="Success vs the alpha band")
    right.set(xlabel="epoch", ylabel=f"fraction of tasks with |p̂-alpha| <= {k_min:g}", ylim=(0, 1),
              title="Tasks in the band")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _plot_heldout(ax: Any, heldout: list[dict[str, Any]]) -> None:
    lines: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in heldout:
        lines[(row["arm"], f"{row['env']}:{row['split']}")].append(row)
    styles = {split: ("-", "--", ":", "-.")[i % 4] for i, split in enumerate(sorted({s for _, s in lines}))}
    for (arm, split), points in sorted(lines.items()):
        points.sort(key=lambda r: r["epoch"])
        label, color, marker = ARM_STYLE.get(arm, (arm, None, "x"))
        x = [r["epoch"] + 1 for r in points]
        y = [r["success_rate"] for r in points]
        err = [[v - r["ci95_low"] for v, r in zip(y, points)], [r["ci95_high"] - v for v, r in zip(y, points)]]
        ax.errorbar(x, y, yerr=err, marker=marker, color=color, ls=styles[split], capsize=2,
                    label=f"{label} {split} (n={points[0]['n']})")
    ax.set(xlabel="epoch (0: starting agent)", ylabel="held-out success", ylim=(0, 1), title="Held-out benchmark tasks")
