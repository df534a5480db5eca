"""Run AgentGym's SciWorld server code once and record what it answers, for tests/sciworld.

Imports `agentenv_sciworld.environment` from an AgentGym checkout (github WooooDyy/AgentGym, not
vendored: pass its path) in a throwaway venv holding `scienceworld==1.2.3`, and calls its server
object as its FastAPI routes do: the game list (index -> task, variation), then /reset and /step
payloads for sessions driven by the simulator's gold path (the expert), by seeded random picks of
the valid actions, and by text the grammar rejects, plus a step after the end and an
out-of-range index. Writes tests/sciworld/data/agentgym_original.json, which
tests/sciworld/test_fidelity.py replays against coevo's env, and envs/sciworld/data/tasks.json:
the games' facts from the jar (each kept task's number, name, variation count and ScienceWorld's
train/dev/test variation splits as [start, stop) runs).

    /tmp/venv/bin/python scripts/fidelity/record_sciworld.py /path/to/AgentGym
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "sciworld" / "data" / "agentgym_original.json"
TASKS = ROOT / "envs" / "sciworld" / "data" / "tasks.json"
LEFT_OUT = {"5-1", "5-2", "9-1", "9-2", "9-3", "10-1", "10-2"}  # as agentenv-sciworld's `exceptions`


def _runs(values: list[int]) -> list[list[int]]:
    """Sorted integers as [start, stop) runs."""
    runs: list[list[int]] = []
    for v in sorted(values):
        if runs and runs[-1][1] == v:
            runs[-1][1] = v + 1
        else:
            runs.append([v, v + 1])
    return runs


def _task_facts() -> dict[str, Any]:
    from scienceworld import ScienceWorldEnv

    api = ScienceWorldEnv()
    tasks = []
    for key, name in api.tasks.items():
        if key in LEFT_OUT:
            continue
        api.load(name, 0)
        splits = {
            "train": _runs(api.get_variations_train()),
            "dev": _runs(api.get_variations_dev()),
            "test": _runs(api.get_variations_test()),
        }
        tasks.append({"key": key, "name": name, "variations": api.get_max_variations(name), "splits": splits})
    api.close()
    source = (
        "scienceworld 1.2.3 (its jar): task names (ID2TASK), getTaskMaxVariations, getVariationsTrain/Dev/Test;"
        " AgentGym's agentenv-sciworld leaves out tasks 5-1, 5-2, 9-1, 9-2, 9-3, 10-1, 10-2"
    )
    return {"source": source, "tasks": tasks}


INVALID = ["", "fly to the moon", "focus on unicorn", "open", "go to kitchen", "pick up the whole house"]


def _session(server: Any, index: int, actions: list[str] | None, *, random_steps: int = 0, seed: int = 0) -> dict:
    """One /create, /reset and /step sequence; `actions` None: the gold path of the game."""
    sid = server.create()["id"]
    reset = server.reset(sid, index)
    sim = server.env[sid]
    if actions is None:
        game = server.games[index]
        sim.load(game["taskName"], game["variationIdx"], "", generateGoldPath=True)
        actions = list(sim.get_gold_action_sequence())
        reset = server.reset(sid, index)  # reload without the gold path, as a session does
    rng = random.Random(seed)
    steps = []
    for i in range(len(actions) + random_steps):
        if i < len(actions):
            action = actions[i]
        else:
            action = rng.choice(sorted(sim.get_valid_action_object_combinations()))
        answer = server.step(sid, action)
        steps.append({"action": action, "answer": answer})
        if answer.get("done"):
            steps.append({"action": "look around", "answer": server.step(sid, "look around")})
            break
    server.close(sid)
    return {"index": index, "reset": reset, "steps": steps}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agentgym", type=Path, help="an AgentGym checkout")
    parser.add_argument("--commit", help="the checkout's commit, where it is no git work tree")
    args = parser.parse_args()
    sys.path.insert(0, str(args.agentgym / "agentenv-sciworld"))
    from agentenv_sciworld.environment import server  # starts a JVM and lists its games

    commit = (
        args.commit
        or subprocess.run(
            ["git", "-C", str(args.agentgym), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    )
    runs: list[tuple[str, int]] = []  # the game list as (task, count) runs, in index order
    for game in server.games:
        if runs and runs[-1][0] == game["taskName"] and runs[-1][1] == game["variationIdx"]:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((game["taskName"], 1))
    first = {name: sum(n for _, n in runs[:i]) for i, (name, _) in enumerate(runs)}
    sessions = [
        {"kind": "expert", **_session(server, first["find-living-thing"] + 3, None)},
        {"kind": "expert", **_session(server, first["boil"], None)},
        {"kind": "random", **_session(server, first["chemistry-mix"] + 5, [], random_steps=12, seed=1)},
        {"kind": "random", **_session(server, len(server.games) - 1, [], random_steps=12, seed=2)},
        {"kind": "invalid", **_session(server, first["use-thermometer"] + 100, INVALID)},
    ]
    sid = server.create()["id"]
    out_of_range = server.reset(sid, len(server.games))
    fixture = {
        "agentgym_commit": commit,
        "scienceworld": "1.2.3",
        "games": [list(r) for r in runs],
        "sessions": sessions,
        "reset_out_of_range": {"index": len(server.games), "answer": out_of_range},
    }
    TASKS.write_text(json.dumps(_task_facts(), indent=1), encoding="utf-8")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fixture, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}: {len(server.games)} games, {sum(len(s['steps']) for s in sessions)} steps")


if __name__ == "__main__":
    main()
