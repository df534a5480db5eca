"""Maze benchmark: the shortest-path expert's rate, reset and step latency, memory per session.

Plays the expert on AgentGym's 25 games in process (rate, moves against the shortest path,
each game it cannot finish), then serves `coevo serve maze` and, over AgentGym's routes, times
/reset and /step on the expert's episodes (every game, --rounds times), opens --sessions live
sessions (one move each) and reads the server's RSS. With --agentgym (a folder holding AgentGym's
agentenv-lmrlgym/ with LMRL-Gym's code in its lmrlgym/) it starts AgentGym's LMRL-Gym server
with --agentgym-python and times the same requests on its /maze/ routes.

    python bench/maze.py --json [--sessions 1000] [--agentgym /tmp/AgentGym --agentgym-python PY]
Targets: expert rate 1.0 on shortest paths (or each miss listed); RSS at 1,000 sessions < 2048 MB.
"""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any

from agentgym_server_bench import add_lmrlgym_options, expert_episode, lmrlgym_original, measure_servers, route_measure
from coevo.envs.maze.env import MazeEnv
from coevo.envs.registry import make


def play_expert(env: MazeEnv) -> tuple[dict[str, Any], dict[int, list[str]]]:
    games = [f"maze-{g}" for g in range(sum(env.splits().values()))]
    solved, moves, misses, optimal = 0, [], [], 0
    episodes: dict[int, list[str]] = {}
    for game, task_id in enumerate(games):
        actions, result = expert_episode(env, task_id)
        episodes[game] = actions
        if result is not None and result.reward == 1.0:
            solved += 1
            moves.append(len(actions))
            optimal += len(actions) == env.describe_task(task_id)["shortest"]
        else:
            misses.append({"task_id": task_id, "reason": "the goal was not reached"})
    row = {
        "tasks": len(games),
        "expert_rate": round(solved / len(games), 4),
        "shortest_paths": optimal,
        "moves_mean": round(statistics.mean(moves), 2),
        "moves_max": max(moves),
        "unsolved": misses,
    }
    return row, episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=4, help="times every game's expert episode is timed")
    add_lmrlgym_options(parser)
    args = parser.parse_args()

    env = make("maze")
    assert isinstance(env, MazeEnv)
    out, episodes = play_expert(env)
    indices = [game for _ in range(args.rounds) for game in sorted(episodes)]

    measure = route_measure(episodes, indices, lambda game: {"game": game}, args.sessions, len(episodes), "move up")
    measure_servers(out, "maze", measure, args.sessions, lmrlgym_original(args, "maze"))
    print(json.dumps(out, indent=1) if args.json else out)


if __name__ == "__main__":
    main()
