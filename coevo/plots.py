"""The trainers' figures, in one place: AgentEvol's held-out success by stage and GenEnv's
success and in-band fraction by epoch (with its held-out panel). Both draw held-out success with
its Wilson 95% interval from the metrics rows (ci95_low, ci95_high) and are written as files
only (no display on servers)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: How each GenEnv arm is drawn: label, colour, marker.
ARM_STYLE = {
    "genenv": ("GenEnv", "tab:blue", "o"),
    "random": ("GenEnv-Random", "tab:orange", "s"),
    "static": ("Static augmentation", "tab:gray", "^"),
}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only; no display on servers
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: str | Path, dpi: int | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, **({} if dpi is None else {"dpi": dpi}))
    _pyplot().close(fig)
    return path


def _interval(values: Sequence[float], rows: Sequence[Mapping[str, Any]], scale: float = 1.0) -> list[list[float]]:
    """Error-bar lengths [below, above] of `values` (rates times `scale`) from the rows' Wilson interval."""
    return [
        [v - scale * r["ci95_low"] for v, r in zip(values, rows)],
        [scale * r["ci95_high"] - v for v, r in zip(values, rows)],
    ]


def plot_stages(rows: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """AgentEvol: held-out success (95% interval), accepted-action rate and mean reward after each
    stage (the accepted-action rate shows a small model learning the env's language before it
    solves tasks)."""
    plt = _pyplot()
    stages = [r["stage"] for r in rows]
    success = [100 * r["success_rate"] for r in rows]
    reward = [r["mean_reward"] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=120)
    ax.plot(stages, success, marker="o", color="tab:blue", label="held-out success (%), 95% CI")
    if all("ci95_low" in r for r in rows):
        ax.errorbar(
            stages, success, yerr=_interval(success, rows, 100), fmt="none", ecolor="tab:blue", alpha=0.5, capsize=3
        )
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
    return _save(fig, path)


def plot_epochs(
    rows: list[dict[str, Any]], path: Path, alpha: float, k_min: float, heldout: list[dict[str, Any]] | None = None
) -> Path | None:
    """GenEnv: success and in-band fraction on generated tasks by epoch, each arm side by side
    against the alpha band; with held-out rows, a third panel of held-out success (95% interval)
    per split, epoch 0 being the starting agent."""
    if not rows:
        return None
    plt = _pyplot()
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
             title="Success vs the alpha band")  # fmt: skip
    right.set(xlabel="epoch", ylabel=f"fraction of tasks with |p̂-alpha| <= {k_min:g}", ylim=(0, 1),
              title="Tasks in the band")  # fmt: skip
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    return _save(fig, path, dpi=120)


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
        ax.errorbar(x, y, yerr=_interval(y, points), marker=marker, color=color, ls=styles[split], capsize=2,
                    label=f"{label} {split} (n={points[0]['n']})")  # fmt: skip
    ax.set(xlabel="epoch (0: starting agent)", ylabel="held-out success", ylim=(0, 1), title="Held-out benchmark tasks")
