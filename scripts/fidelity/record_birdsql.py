"""Record BIRD's execution-accuracy function and AgentGym's SQLGym server on coevo's generated set, once.

Runs the originals, not vendored (pass their paths; run with a Python that has the `sqlgym`
package (0.1.2) and `func_timeout` installed, e.g. a throwaway venv):

- BIRD's evaluation (`bird/llm/src/evaluation.py` of github AlibabaResearch/DAMO-ConvAI, commit
  483554e): `execute_model(predicted, gold, db, idx, 30.0)` on each pair of `PAIRS` (its `res`:
  1 when both ran and their rows are equal as sets);
- AgentGym's SQL server logic (`agentenv-sqlgym/agentenv_sqlgym/environment.py` of github
  WooooDyy/AgentGym, over the `sqlgym` package): `create`, `reset(item_id)`, `step(action)` and
  `observation` on the items and actions of `SQLGYM_STEPS`, with the generated set (seed 0) as
  its `AGENTENV_SQLGYM_BIRD_PATH`.

It writes tests/birdsql/fixtures/bird_execution_accuracy.json and sqlgym_server.json, which
tests/birdsql/test_fidelity.py replays against coevo's sandbox, scoring and env.

    .venv/bin/python -c "from pathlib import Path; from coevo.envs.birdsql.generator import build_generated; \
        build_generated(0, out=Path('/tmp/bird0'))"
    /tmp/venv/bin/python scripts/fidelity/record_birdsql.py --build /tmp/bird0 \
        --damo /path/to/DAMO-ConvAI --agentgym /path/to/AgentGym

(the originals' venv need not hold coevo: the generated set is built first, with coevo's venv).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "birdsql" / "fixtures"

#: (split, template kind, predicted SQL with {gold} standing for the gold SQL, what it tries):
#: the task is the split's first question of that kind in the generated set (seed 0).
PAIRS: list[tuple[str, str, str, str]] = [
    ("train", "filter", "{gold}", "gold"),
    ("train", "group_aggregate", "{gold}", "gold"),
    ("dev", "filter", "{gold}", "gold"),
    ("dev", "percentage", "{gold}", "gold"),
    ("dev", "filter", "SELECT * FROM ({gold}) ORDER BY 1 DESC", "row order"),
    ("dev", "filter", "{gold} UNION ALL {gold}", "duplicate rows"),
    ("dev", "filter", "SELECT *, 1 FROM ({gold})", "extra column"),
    ("dev", "filter", "SELECT * FROM ({gold}) LIMIT 1", "a subset of the rows"),
    ("dev", "filter", "SELECT nothing FROM ({gold})", "no such column"),
    ("dev", "filter", "SELECT * FROM ({gold}) WHERE 0", "empty result"),
    ("dev", "join_count", "SELECT CAST(({gold}) AS REAL)", "integer vs real"),
    ("dev", "join_count", "SELECT CAST(({gold}) AS TEXT)", "integer vs text"),
    ("dev", "join_count", "SELECT ({gold}) + 1", "wrong count"),
    ("dev", "join_count", "{gold}; SELECT 1", "two statements"),
    ("train", "filter", "DELETE FROM student", "a write"),
]

#: (item index, actions) for AgentGym's SQL server; None stands for the item's gold SQL.
SQLGYM_STEPS: list[tuple[int, list[str | None]]] = [
    (0, [None]),
    (1, ["SELECT * FROM student"]),
    (2, ["SELECT nothing FROM nowhere"]),
    (3, [None, None]),
    (9428, [None]),
    (9431, ["SELECT COUNT(*) FROM loan", None]),
    (9429, ["SELECT title FROM book LIMIT 3"]),
    (9430, ["SELECT 1; SELECT 2"]),
    (9432, ["DELETE FROM loan"]),
]


def _load(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record_bird(damo: Path, build: Path) -> list[dict[str, Any]]:
    evaluation = _load(damo / "bird" / "llm" / "src" / "evaluation.py", "bird_evaluation")
    out = []
    for split, kind, predicted, note in PAIRS:
        items = json.loads((build / split / f"{split}.json").read_text())
        index, item = next((i, q) for i, q in enumerate(items) if q["template"] == kind)
        task_id = f"{split}-{index}"
        db = build / split / f"{split}_databases" / item["db_id"] / f"{item['db_id']}.sqlite"
        sql = predicted.replace("{gold}", item["SQL"])
        verdict = evaluation.execute_model(sql, item["SQL"], str(db), 0, 30.0)
        out.append(
            {"task_id": task_id, "note": note, "predicted_sql": sql, "gold_sql": item["SQL"], "res": verdict["res"]}
        )
    return out


def record_sqlgym(agentgym: Path, build: Path) -> list[dict[str, Any]]:
    os.environ["AGENTENV_SQLGYM_BIRD_PATH"] = str(build)
    environment = _load(agentgym / "agentenv-sqlgym" / "agentenv_sqlgym" / "environment.py", "sqlgym_environment")
    server = environment.SqlGymEnvServer()
    out = []
    for item_id, actions in SQLGYM_STEPS:
        env_idx = server.create()
        observation = server.reset(env_idx, item_id)
        split, offset = ("train", item_id) if item_id < 9428 else ("dev", item_id - 9428)
        gold = json.loads((build / split / f"{split}.json").read_text())[offset]["SQL"]
        steps = []
        for action in actions:
            sql = gold if action is None else action
            state, reward, done, info = server.step(env_idx, sql)
            steps.append({"action": sql, "state": state, "reward": reward, "done": done, "info": info})
        out.append(
            {
                "item_id": item_id,
                "reset": observation,
                "steps": steps,
                "observation": server.observation(env_idx),
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--damo", type=Path, required=True, help="a DAMO-ConvAI checkout")
    parser.add_argument("--agentgym", type=Path, required=True, help="an AgentGym checkout")
    parser.add_argument("--build", type=Path, required=True, help="the generated set, seed 0 (see above)")
    args = parser.parse_args()
    build = args.build
    OUT.mkdir(parents=True, exist_ok=True)
    source = {"seed": 0, "generator_format": json.loads((build / "meta.json").read_text())["format"]}
    bird = {
        "source": "DAMO-ConvAI bird/llm/src/evaluation.py (commit 483554e), execute_model",
        "build": source,
        "pairs": record_bird(args.damo, build),
    }
    (OUT / "bird_execution_accuracy.json").write_text(json.dumps(bird, indent=1) + "\n")
    sqlgym = {
        "source": "AgentGym agentenv-sqlgym (commit 3ef9235) over sqlgym 0.1.2",
        "build": source,
        "items": record_sqlgym(args.agentgym, build),
    }
    (OUT / "sqlgym_server.json").write_text(json.dumps(sqlgym, indent=1) + "\n")


if __name__ == "__main__":
    main()
