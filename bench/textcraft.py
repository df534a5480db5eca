"""TextCraft benchmark: the expert's rate, reset and step latency, memory per live session.

Plays the recipe planner on all 544 tasks in process (rate, steps, each task it cannot solve
with the reason), then serves `coevo serve textcraft` and, over AgentGym's routes (what its
clients call), times /reset and /step on the expert's episodes, opens --sessions live sessions
(one step each) and reads the server's RSS before and after. With --agentgym (a folder holding
AgentGym's agentenv-textcraft/) and --agentgym-python (an interpreter with its dependencies:
fastapi, uvicorn, gymnasium, numpy) it starts AgentGym's own server the same way and times the
same requests on it: the baseline, measured in the same run.

    python bench/textcraft.py --json [--sessions 1000] [--agentgym /tmp/AgentGym --agentgym-python /tmp/venv/bin/python]
Targets: expert_rate 1.0 (or each miss explained); rss at 1,000 live sessions < 2048 MB.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from agentgym_server_bench import Measure, expert_episode, measure_servers, route_measure, with_original
from coevo.envs.registry import make
from coevo.envs.textcraft import expert
from coevo.envs.textcraft.env import TextCraftEnv
from measure import log

#: What AgentGym's TextCraft client sends to /create.
CREATE = {"commands": None, "goal": None}

TASKS = 544


def play_expert(env: TextCraftEnv) -> tuple[dict[str, Any], dict[int, list[str]]]:
    """The expert on every task in process: its rate, steps, the misses with reasons, and each
    solved episode's commands (replayed over HTTP below)."""
    solved, steps, misses = 0, [], []
    episodes: dict[int, list[str]] = {}
    for index in range(TASKS):
        actions, result = expert_episode(env, f"textcraft-{index}")
        reason = None
        if not env.done:  # the expert had no next command: the planner says why
            assert env.game is not None
            try:
                expert.plan(env.shared.planner, env.game.goal, env.game.inventory)
                reason = "the planner has no next command"
            except expert.PlanFailed as failed:
                reason = str(failed)
        if result is not None and result.reward == 1.0:
            solved += 1
            steps.append(len(actions))
            episodes[index] = actions
        else:
            misses.append({"task_id": f"textcraft-{index}", "reason": reason or f"truncated at {env.max_steps} steps"})
    row = {
        "tasks": TASKS,
        "expert_rate": round(solved / TASKS, 4),
        "expert_steps_mean": round(statistics.mean(steps), 2),
        "expert_steps_max": max(steps),
        "unsolved": misses,
    }
    return row, episodes


def agentgym_textcraft(args: argparse.Namespace) -> Callable[[Measure], dict]:
    """A measurement run on AgentGym's own TextCraft server (args.agentgym's agentenv-textcraft/
    under uvicorn with args.agentgym_python)."""
    cmd = [
        args.agentgym_python,
        "-m",
        "uvicorn",
        "agentenv_textcraft:app",
        "--port",
        "{port}",
        "--log-level",
        "warning",
    ]
    cwd = args.agentgym.resolve() / "agentenv-textcraft"
    # PYTHONHASHSEED=0: the seed its tasks were recorded with (docs/textcraft.md).
    return partial(with_original, cmd, cwd, env={"PYTHONHASHSEED": "0"})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--timed-tasks", type=int, default=60, help="tasks whose expert episodes are timed over HTTP")
    parser.add_argument("--agentgym", type=Path, help="a folder holding AgentGym's agentenv-textcraft/")
    parser.add_argument("--agentgym-python", default="python", help="an interpreter that runs AgentGym's server")
    args = parser.parse_args()

    env = make("textcraft")
    assert isinstance(env, TextCraftEnv)
    log("playing the expert on all 544 tasks")
    out, episodes = play_expert(env)
    indices = sorted(episodes)[:: max(1, len(episodes) // args.timed_tasks)][: args.timed_tasks]

    measure = route_measure(
        episodes, indices, lambda index: {"data_idx": index}, args.sessions, TASKS, "inventory", CREATE
    )
    measure_servers(out, "textcraft", measure, args.sessions, agentgym_textcraft(args) if args.agentgym else None)
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for key, value in out.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
