"""Run AgentGym's LMRL-Gym server code (Wordle, Maze) once and record its episodes.

AgentGym's `agentenv-lmrlgym` (github WooooDyy/AgentGym) wraps LMRL-Gym's games (github
abdulhaim/LMRL-Gym, the submodule commit 83abeed). Neither is vendored: pass a folder holding
`agentenv-lmrlgym/` with LMRL-Gym's `LLM_RL/` and `llm_rl_scripts/` extracted into its
`lmrlgym/` folder. The script imports the server's game wrappers (`wordle_server`,
`maze_server`) without its package `__init__` (which imports both games at once), with
`IPython` stubbed (Maze's env imports `embed` and never calls it), and drives them with our
expert's actions, random actions and malformed ones, recording every answer:

* `wordle`: tests/wordle/data/original_episodes.json (observation, reward, done or the server's
  error, and /filtered_vocab after every step);
* `maze`: tests/maze/data/original_episodes.json.

    PYTHONPATH=<scikit-image for maze> .venv/bin/python scripts/fidelity/record_lmrlgym.py /tmp/AgentGym wordle|maze
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

WORDLE_SEEDS = [*range(0, 25), 25, 26, 100, 500, 979]
WORDLE_INVALID = ["", "xx", "SHIRE", "shire ", "  s h i r e", "abcde", "panics", "pan1c", "s  h i r e"]


def _import_server(checkout: Path) -> None:
    root = checkout / "agentenv-lmrlgym"
    stubs = types.ModuleType("IPython")
    stubs.embed = lambda *a, **k: None  # type: ignore[attr-defined]
    sys.modules.setdefault("IPython", stubs)
    sys.path[:0] = [str(root / "lmrlgym")]
    package = types.ModuleType("agentenv_lmrlgym")
    package.__path__ = [str(root / "agentenv_lmrlgym")]
    sys.modules["agentenv_lmrlgym"] = package


def _wordle_action(rng: random.Random, vocabulary: tuple[str, ...], expert: str | None) -> str:
    kind = rng.randrange(5)
    if kind == 0 and expert is not None:
        return expert
    if kind == 1:
        return " ".join(rng.choice(vocabulary))
    if kind == 2:
        return rng.choice(WORDLE_INVALID)
    return rng.choice(vocabulary)


def record_wordle() -> None:
    from agentenv_lmrlgym.wordle.environment import wordle_server  # type: ignore[import-not-found]

    from coevo.envs.registry import make

    ours = make("wordle")
    rng = random.Random(38)
    episodes = []
    for seed in WORDLE_SEEDS:
        for kind in ("expert", "random", "invalid"):
            sid = wordle_server.create()["id"]
            first = wordle_server.reset(sid, seed)
            ours.reset(task_id=f"wordle-{seed}")
            steps: list[dict[str, Any]] = []
            for i in range(7):  # six guesses end the game; the seventh shows the server's refusal
                if kind == "expert":
                    action = ours.expert_action() or "shire"
                elif kind == "random":
                    action = _wordle_action(rng, ours.shared.vocabulary, ours.expert_action())
                else:
                    action = WORDLE_INVALID[i % len(WORDLE_INVALID)] if i < 4 else "s h i r e"
                answer = wordle_server.step(sid, action)
                vocab = wordle_server.get_filtered_vocab(sid)
                steps.append({"action": action, "answer": answer, "filtered_vocab": vocab})
                if "error" in answer:
                    break
                ours.step(action)
            episodes.append({"seed": seed, "kind": kind, "reset": first, "steps": steps})
    out = ROOT / "tests" / "wordle" / "data" / "original_episodes.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"episodes": episodes}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(episodes)} episodes, {sum(len(e['steps']) for e in episodes)} steps")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agentgym", type=Path, help="a folder holding agentenv-lmrlgym/ with lmrlgym/ filled in")
    parser.add_argument("game", choices=["wordle", "maze"])
    args = parser.parse_args()
    _import_server(args.agentgym.resolve())
    if args.game == "wordle":
        record_wordle()
    else:
        record_maze()


MAZE_INVALID = ["", "Move up", "move up\n", " move down", "go left", "move  right", "move down please", "up"]
MAZE_MOVES = ["move up", "move down", "move left", "move right"]


def record_maze() -> None:
    from agentenv_lmrlgym.maze.environment import maze_server  # type: ignore[import-not-found]

    from coevo.envs.registry import make

    ours = make("maze")
    rng = random.Random(38)
    episodes = []
    for game in range(27):  # 25 is the goal itself, 26 past the list: both refused
        for kind in ("expert", "random", "invalid", "walls"):
            if game >= 25 and kind != "expert":
                continue
            sid = maze_server.create()["id"]
            first = maze_server.reset(sid, game)
            steps: list[dict[str, Any]] = []
            if "error" not in first:
                ours.reset(task_id=f"maze-{game}")
                for i in range(60):
                    if kind == "expert":
                        action = ours.expert_action() or "move up"
                    elif kind == "random":
                        action = rng.choice(MAZE_MOVES) if rng.random() < 0.8 else rng.choice(MAZE_INVALID)
                    elif kind == "invalid":
                        action = MAZE_INVALID[i % len(MAZE_INVALID)] if i < 10 else (ours.expert_action() or "move up")
                    else:  # into the walls until the move limit fails the episode
                        action = "move up" if i % 2 else "move left"
                    answer = maze_server.step(sid, action)
                    steps.append({"action": action, "answer": answer})
                    if "error" in answer:
                        break
                    ours.step(action)
            episodes.append({"game": game, "kind": kind, "reset": first, "steps": steps})
    out = ROOT / "tests" / "maze" / "data" / "original_episodes.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"episodes": episodes}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(episodes)} episodes, {sum(len(e['steps']) for e in episodes)} steps")


if __name__ == "__main__":
    main()
