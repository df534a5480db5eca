"""Replays of the originals, recorded once by scripts/fidelity/record_birdsql.py on the generated
set (seed 0): BIRD's execution-accuracy verdicts and AgentGym's SQLGym server's texts and rewards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coevo.envs.birdsql.env import BirdSqlEnv, Shared
from coevo.envs.birdsql.sandbox import REFUSED_PREFIX, run_readonly
from coevo.envs.birdsql.scoring import execution_accuracy

FIXTURES = Path(__file__).parent / "fixtures"
BIRD = json.loads((FIXTURES / "bird_execution_accuracy.json").read_text())
SQLGYM = json.loads((FIXTURES / "sqlgym_server.json").read_text())
#: Where coevo differs from BIRD's evaluation on purpose (docs/birdsql.md): BIRD opens the
#: database writable, so a DELETE empties the table its gold SQL then reads in the same
#: transaction, and scores 1; the sandbox refuses the write and scores 0.
DIFFERENT = {"a write": 0.0}


@pytest.mark.parametrize("pair", BIRD["pairs"], ids=[p["note"] for p in BIRD["pairs"]])
def test_execution_accuracy_matches_birds_evaluation(shared: Shared, pair: dict[str, Any]) -> None:
    task = shared.by_id[pair["task_id"]]
    assert task.sql == pair["gold_sql"], "the generated set changed since the fixture was recorded"
    path = shared.database(task).path
    predicted = run_readonly(path, pair["predicted_sql"], time_limit=30, row_cap=100_000)
    gold = run_readonly(path, pair["gold_sql"], time_limit=30, row_cap=100_000)
    expected = DIFFERENT.get(pair["note"], float(pair["res"]))
    assert execution_accuracy(predicted, gold) == expected
    if pair["note"] in DIFFERENT:
        assert pair["res"] == 1 and predicted.refused


def _task_of(shared: Shared, item_id: int) -> str:
    split, offset = ("train", item_id) if item_id < 9428 else ("dev", item_id - 9428)
    return shared.tasks[split][offset].task_id


@pytest.mark.parametrize("item", SQLGYM["items"], ids=[str(i["item_id"]) for i in SQLGYM["items"]])
def test_agentgym_presentation_matches_sqlgyms_server(shared: Shared, item: dict[str, Any]) -> None:
    env = BirdSqlEnv(shared=shared)
    env.agentgym = True
    reset = env.reset(task_id=_task_of(shared, item["item_id"]))
    assert reset.observation == item["reset"]
    for n, recorded in enumerate(item["steps"]):
        result = env.step(recorded["action"], after_done=n > 0)
        assert (result.reward, result.done) == (recorded["reward"], recorded["done"])
        assert result.info["ground_truth"] == recorded["info"]["ground_truth"]
        if recorded["state"] in (
            "You can only execute one statement at a time.",
            "attempt to write a readonly database",
        ):
            assert result.observation.startswith(REFUSED_PREFIX)  # our refusal says why (docs/birdsql.md)
        else:
            assert result.observation == recorded["state"]
    assert env.agentgym_profile.adapt(env).observation() == item["observation"]
