"""Evaluation numbers from trajectories: success rate, mean reward, mean steps, per task type.

Besides the outcome, two rates say how well an agent speaks the env's language: unreadable
replies (no action could be parsed) per round, and actions the env accepted per step, from the
env's own `info["admissible"]` (text games) or `info["valid"]` (most others) where it reports
one.

Every number is over the scored episodes only (coevo.end_status): an episode the env never
judged is counted under `unscored` and by its status, never averaged in as a 0.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from coevo import end_status
from coevo.client.trajectory import Trajectory


def _accepted(group: list[Trajectory]) -> float | None:
    verdicts = [
        bool(turn.info.get("admissible", turn.info.get("valid")))
        for t in group
        for turn in t.turns
        if turn.valid and ("admissible" in turn.info or "valid" in turn.info)
    ]
    return sum(verdicts) / len(verdicts) if verdicts else None


def _stats(everything: list[Trajectory]) -> dict[str, Any]:
    # Unscored episodes (an env, policy or transport error, an abandoned lease) are left out of
    # every rate and mean, never counted as a 0; `unscored` says how many were left out.
    # `n` counts every episode, `scored` those the rates are over.
    group = [t for t in everything if t.scored]
    n = len(group)
    counts = {"n": len(everything), "scored": n, "unscored": len(everything) - n}
    if n == 0:
        return {**counts, "success_rate": 0.0, "mean_reward": 0.0, "mean_steps": 0.0}
    return {
        **counts,
        "success_rate": sum(t.success for t in group) / n,
        "mean_reward": sum(t.reward for t in group) / n,
        "mean_steps": sum(t.steps for t in group) / n,
        "mean_rounds": sum(t.rounds for t in group) / n,
        "invalid_reply_rate": sum(t.invalid_replies for t in group) / max(1, sum(t.rounds for t in group)),
        "accepted_action_rate": _accepted(group),
    }


def summarize(trajectories: Iterable[Trajectory]) -> dict[str, Any]:
    """Overall numbers plus a breakdown by task type (trajectories without one count as "-")."""
    items = list(trajectories)
    by_type: dict[str, list[Trajectory]] = defaultdict(list)
    for t in items:
        by_type[t.task_type or "-"].append(t)
    return {
        **_stats(items),
        "status": end_status.count(t.status for t in items),
        "end_reason": dict(sorted(Counter(t.end_reason or "-" for t in items).items())),
        "by_task_type": {k: _stats(v) for k, v in sorted(by_type.items())},
    }
