"""Wordle benchmark: the solver's win rate, reset and step latency, memory per live session.

Plays the solver on all 980 tasks (seeds) in process (win rate, guesses, each task it loses),
then serves `coevo serve wordle` and, over AgentGym's routes, times /reset and /step on the
solver's games, opens --sessions live sessions (one guess each) and reads the server's RSS. With
--agentgym (a folder holding AgentGym's agentenv-lmrlgym/ with LMRL-Gym's code in its lmrlgym/,
as scripts/fidelity/record_lmrlgym.py describes) it starts AgentGym's LMRL-Gym server under
uvicorn with --agentgym-python and times the same requests on its /wordle/ routes.

    python bench/wordle.py --json [--sessions 1000] [--agentgym /tmp/AgentGym --agentgym-python PY]
Targets: win rate 1.0 (or each loss listed); RSS at 1,000 live sessions < 2048 MB.
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any

from agentgym_server_bench import add_lmrlgym_options, expert_episode, lmrlgym_original, measure_servers, route_measure
from coevo.envs.registry import make
from coevo.envs.wordle.env import WordleEnv
from measure import log

SEEDS = 980


def play_solver(env: WordleEnv) -> tuple[dict[str, Any], dict[int, list[str]]]:
    wins, guesses, losses = 0, [], []
    episodes: dict[int, list[str]] = {}
    for seed in range(SEEDS):
        actions, result = expert_episode(env, f"wordle-{seed}")
        episodes[seed] = actions
        if result is not None and result.reward == 1.0:
            wins += 1
            guesses.append(len(actions))
        else:
            losses.append({"task_id": f"wordle-{seed}", "reason": f"not found in {len(actions)} guesses"})
    row = {
        "tasks": SEEDS,
        "expert_rate": round(wins / SEEDS, 4),
        "guesses_mean": round(statistics.mean(guesses), 3),
        "guesses_max": max(guesses),
        "unsolved": losses,
    }
    return row, episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--timed-tasks", type=int, default=100)
    add_lmrlgym_options(parser)
    args = parser.parse_args()

    env = make("wordle")
    assert isinstance(env, WordleEnv)
    log("playing the solver on all 980 seeds")
    out, episodes = play_solver(env)
    indices = list(range(0, SEEDS, max(1, SEEDS // args.timed_tasks)))[: args.timed_tasks]

    measure = route_measure(episodes, indices, lambda seed: {"seed": seed}, args.sessions, SEEDS, "s h i r e")
    measure_servers(out, "wordle", measure, args.sessions, lmrlgym_original(args, "wordle"))
    print(json.dumps(out, indent=1) if args.json else out)


if __name__ == "__main__":
    main()
