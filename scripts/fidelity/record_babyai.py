"""Record AgentGym's BabyAI server on fixed items and action sequences, once.

Two passes, because the original needs its own pins (gymnasium<1.0, minigrid<2.5) and must not
share a venv with coevo:

    # 1. in coevo's venv: the inputs (items, and per run its actions: our expert's, random
    #    picks from the available actions, invalid ones mixed in)
    python scripts/fidelity/record_babyai.py plan
    # 2. in a throwaway venv with AgentGym's agentenv-babyai requirements (never vendored):
    /tmp/babyai-orig/bin/python scripts/fidelity/record_babyai.py run /path/to/AgentGym

`run` imports `agentenv_babyai.environment` from the checkout and calls its server object
(`BabyAIEnv`: create, reset, step, observe) exactly as its FastAPI routes do, and writes the
answers beside the inputs in tests/babyai/fixtures/agentgym_babyai.json, which
tests/babyai/test_fidelity.py replays against our env.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[2] / "tests" / "babyai" / "fixtures" / "agentgym_babyai.json"
#: Items whose reset is recorded: the test split (seed -> level mapping over all 40 levels).
RESET_ITEMS = list(range(90))
#: Items the expert plays (one per level at seed 0, a few at other seeds), at most this many steps.
EXPERT_ITEMS = list(range(40)) + [45, 130, 411]
EXPERT_STEPS = 40
#: Items played with random available actions mixed with invalid ones.
RANDOM_ITEMS = [3, 12, 26, 48, 95]
RANDOM_STEPS = 25
INVALID = [
    "",
    "fly to the moon",
    "pickup purple unicorn 1",
    "drop",
    "go through red open door 3",
    "CHECK",
    "move forward",
]


def plan() -> dict[str, Any]:
    from coevo.envs import registry

    env = registry.make("babyai")
    runs: list[dict[str, Any]] = []
    for index in EXPERT_ITEMS:
        env.reset(task_id=f"babyai_{index}")
        actions: list[str] = []
        for _ in range(EXPERT_STEPS):
            action = env.expert_action()
            if action is None:
                break
            actions.append(action)
            if env.step(action).done:
                break
        runs.append({"kind": "expert", "data_idx": index, "actions": actions})
    rng = random.Random(38)
    for index in RANDOM_ITEMS:
        result = env.reset(task_id=f"babyai_{index}")
        available: list[str] = result.info["available_actions"]
        actions = []
        for _ in range(RANDOM_STEPS):
            action = rng.choice(INVALID) if rng.random() < 0.3 else rng.choice(available)
            actions.append(action)
            step = env.step(action)
            available = step.info["available_actions"]
            if step.done:
                break
        runs.append({"kind": "random", "data_idx": index, "actions": actions})
    return {"reset_items": RESET_ITEMS, "runs": runs}


def run(checkout: Path, inputs: dict[str, Any]) -> dict[str, Any]:
    sys.path.insert(0, str(checkout / "agentenv-babyai"))
    import gymnasium
    import minigrid
    from agentenv_babyai.environment import BabyAIEnv

    server = BabyAIEnv()
    sid = server.create()["id"]
    resets = {str(i): server.reset(sid, i) for i in inputs["reset_items"]}
    for entry in inputs["runs"]:
        entry["reset"] = server.reset(sid, entry["data_idx"])
        entry["steps"] = []
        for action in entry["actions"]:
            entry["steps"].append(server.step(sid, action))
        entry["after_end"] = {"step": server.step(sid, "turn left"), "observation": server.observe(sid)}
    commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True)
    return {
        "agentgym_commit": commit.stdout.strip() or None,
        "versions": {"gymnasium": gymnasium.__version__, "minigrid": minigrid.__version__},
        "resets": resets,
        "runs": inputs["runs"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    sub.add_parser("plan")
    r = sub.add_parser("run")
    r.add_argument("agentgym", type=Path, help="an AgentGym checkout (its agentenv-babyai folder is imported)")
    args = parser.parse_args()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    if args.mode == "plan":
        OUT.write_text(json.dumps(plan(), indent=1) + "\n")
    else:
        fixture = run(args.agentgym, json.loads(OUT.read_text()))
        OUT.write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
