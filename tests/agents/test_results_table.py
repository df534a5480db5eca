"""`coevo eval`'s table on real trajectories: nothing cut when printed to a pipe, and episodes
that ended on unreadable replies explained rather than shown as 'mean steps 0.0, unreadable 100%'."""

from __future__ import annotations

import io

from rich.console import Console

from coevo.cli.tables import print_table, results_table
from coevo.client.rollout import MAX_INVALID_REPLIES
from coevo.client.summary import summarize
from coevo.client.trajectory import EpisodeSpec
from tests.agents.test_rollout import ScriptedPolicy, _run


def rendered(summary: dict) -> str:
    out = io.StringIO()
    print_table(Console(file=out, width=80), results_table("guess · test · scripted", summary, MAX_INVALID_REPLIES))
    return out.getvalue()


def test_episodes_ended_on_unreadable_replies_are_explained() -> None:
    stuck = ScriptedPolicy(["no idea\nat all"])
    trajectories = _run(stuck, [EpisodeSpec("guess", task_id=f"train-{i}") for i in range(4)], max_rounds=10)
    assert {(t.status, t.end_reason) for t in trajectories} == {("failure", "invalid_replies")}
    text = rendered(summarize(trajectories))
    assert "…" not in text
    rows = [line for line in text.splitlines() if line.startswith("│ all")]
    cells = [cell.strip() for cell in rows[0].strip("│").split("│")]
    # n, unscored, success, mean reward, model turns, env steps, unreadable, accepted
    assert cells[1:] == ["4", "0", "0.0%", "0.000", f"{MAX_INVALID_REPLIES:.1f}", "0.0", "100.0%", "-"]
    assert f"4 of 4 episodes ended after {MAX_INVALID_REPLIES} unreadable replies in a row" in " ".join(text.split())
    assert "env steps: actions the env received" in text


def test_a_readable_run_has_no_such_note() -> None:
    solver = ScriptedPolicy(["Thought: try\nAction: guess 50"])
    trajectories = _run(solver, [EpisodeSpec("guess", task_id="train-0")], max_rounds=2)
    text = rendered(summarize(trajectories))
    assert "unreadable replies in a row" not in text
    for header in (
        "task type",
        "unscored",
        "success",
        "mean reward",
        "model turns",
        "env steps",
        "unreadable",
        "accepted",
    ):
        assert header in text
