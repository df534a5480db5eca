"""Evaluation numbers from trajectories: success rate, mean reward, mean steps, per task type.

Besides the outcome, two rates say how well an agent speaks the env's language: unreadable
replies (no action could be parsed) per round, and actions the env accepted per step, from the
env's own `info["admissible"]` (text games) or `info["valid"]` (most others) where it reports
one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from coevo.client.trajectory import Trajectory


def _accepted(group: list[Trajectory]) -> float | None:
    verdicts = [
        bool(turn.info.get("admissible", turn.info.get("valid")))
        for t in group
        for turn in t.turns
        if turn.valid and ("admissible" in turn.info or "valid" in turn.info)
    ]
    return sum(verdicts) / len(verdicts) if verdicts else None


def _stats(group: list[Trajectory]) -> dict[str, Any]:
    n = len(group)
    if n == 0:
        return {"n": 0, "success_rate": 0.0, "mean_reward": 0.0, "mean_steps": 0.0}
    return {
        "n": n,
        "success_rate": sum(t.success for t in group) / n,
        "mean_reward": sum(t.reward for t in group) / n,
        "mean_steps": sum(t.steps for t in group) / n,
        "mean_rounds": sum(t.rounds for t in group) / n,
        "invalid_reply_rate": sum(t.invalid_replies for t in group) / max(1, sum(t.rounds for t in group)),
        "accepted_action_rate": _accepted(group),
        "errors": sum(t.status == "error" for t in group),
    }


def summarize(trajectories: Iterable[Trajectory]) -> dict[str, Any]:
    """Overall numbers plus a breakdown by task type (trajectories without one count as "-")."""
    items = list(trajectories)
    by_type: dict[str, list[Trajectory]] = defaultdict(list)
    for t in items:
        by_type[t.task_type or "-"].append(t)
    statuses: dict[str, int] = defaultdict(int)
    for t in items:
        statuses[t.status] += 1
    return {
        **_stats(items),
        "status": dict(sorted(statuses.items())),
        "by_task_type": {k: _stats(v) for k, v in sorted(by_type.items())},
    }
