"""ALFWorld: the native engine against the real one (TextWorld + fast-downward) on the same games.

For each game (generated, full ALFRED floor plans, the valid_seen mix) both engines reset and
play the same commands: the expert's winning plan, then random admissible commands. Times are
CPU seconds of this process (`time.process_time`, steady on a shared machine; TextWorld runs
in-process), with wall-clock figures alongside. The native reset is the env's cold reset of a
task it has never seen: generate the scene from the task id, prove it winnable with the
expert, compile it, render the intro. The TextWorld reset loads the exported game file and
resets. `session_kb` is the memory (tracemalloc) per live native session, each on a game of
its own; `session_kb_same_game` when all sessions play one game.

    python bench/alfworld.py --json [--games 6] [--random-steps 10] [--sessions 200]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

# Run as `python bench/alfworld.py`, this file's folder leads sys.path and its name would shadow
# the alfworld package the TextWorld backend imports.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from coevo.envs.registry import make  # noqa: E402


def _timed(fn, *args):
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn(*args)
    return out, time.process_time() - cpu, time.perf_counter() - wall


def _session_kb(task_ids: list[str]) -> float:
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    shared_env = make("alfworld", cache=len(task_ids) + 1)
    envs = []
    for tid in task_ids:
        env = type(shared_env)(shared=shared_env.shared, **shared_env.options)
        env.reset(task_id=tid)
        env.step(env.expert_action())
        envs.append(env)
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    del envs
    return used / len(task_ids) / 1024


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--random-steps", type=int, default=10)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--split", default="valid_seen")
    args = parser.parse_args(argv)

    from coevo.envs.alfworld.export import game_data
    from coevo.envs.alfworld.textworld_backend import TextWorldGame, available

    result: dict = {"games": args.games, "clock": "process_time"}
    native_env = make("alfworld", cache=1)
    task_ids = list(native_env.task_ids(args.split, 0, args.games))
    rng = random.Random(0)
    scripts: dict[str, list[str]] = {}
    n_reset, n_step, n_reset_wall, n_step_wall, n_steps = [], [], [], [], 0
    for tid in task_ids:
        native_env.shared.cache = type(native_env.shared.cache)(1)  # cold: nothing cached
        _, cpu, wall = _timed(lambda t=tid: native_env.reset(task_id=t))
        n_reset.append(cpu)
        n_reset_wall.append(wall)
        # The commands both engines get: random admissible ones, then the expert's to the win.
        script: list[str] = []
        done = False
        for _ in range(args.random_steps):
            script.append(rng.choice(sorted(native_env._commands)))
            if native_env.step(script[-1]).done:
                done = True
                break
        while not done and (action := native_env.expert_action()) is not None:
            script.append(action)
            done = native_env.step(action).done
        scripts[tid] = script
        native_env.reset(task_id=tid)
        for action in script:
            _, cpu, wall = _timed(native_env.step, action)
            n_step.append(cpu)
            n_step_wall.append(wall)
            n_steps += 1
    warm = []
    for tid in task_ids:
        native_env.reset(task_id=tid)
        warm.append(_timed(lambda t=tid: native_env.reset(task_id=t))[1])
    result.update(
        native_reset_ms=1000 * sum(n_reset) / len(n_reset),
        native_reset_warm_ms=1000 * sum(warm) / len(warm),
        native_step_ms=1000 * sum(n_step) / len(n_step),
        native_reset_wall_ms=1000 * sum(n_reset_wall) / len(n_reset_wall),
        native_step_wall_ms=1000 * sum(n_step_wall) / len(n_step_wall),
        steps=n_steps,
    )

    if available():
        tw = TextWorldGame()
        t_reset, t_step, t_reset_wall, t_step_wall = [], [], [], []
        mismatches = 0
        with tempfile.TemporaryDirectory() as tmp:
            for tid in task_ids:
                path = Path(tmp) / f"{tid}.tw-pddl"
                path.write_text(json.dumps(game_data(native_env._scene(tid), native_env.shared.dialect.name)))
                native_env.reset(task_id=tid)
                _, cpu, wall = _timed(lambda p=path: (tw.load(p), tw.reset()))
                t_reset.append(cpu)
                t_reset_wall.append(wall)
                for action in scripts[tid]:
                    real, cpu, wall = _timed(tw.step, action)
                    t_step.append(cpu)
                    t_step_wall.append(wall)
                    native = native_env.step(action)
                    mismatches += real.feedback != native.observation
                    if native.done:
                        break
        tw.close()
        result.update(
            textworld_reset_ms=1000 * sum(t_reset) / len(t_reset),
            textworld_step_ms=1000 * sum(t_step) / len(t_step),
            textworld_reset_wall_ms=1000 * sum(t_reset_wall) / len(t_reset_wall),
            textworld_step_wall_ms=1000 * sum(t_step_wall) / len(t_step_wall),
            observation_mismatches=mismatches,
        )
        result["reset_speedup"] = result["textworld_reset_ms"] / result["native_reset_ms"]
        result["step_speedup"] = result["textworld_step_ms"] / result["native_step_ms"]
    else:
        result.update(
            textworld_reset_ms=None,
            textworld_step_ms=None,
            reset_speedup=None,
            step_speedup=None,
            note="TextWorld not installed (pip install 'coevo[alfworld]'); native figures only",
        )

    sessions = list(make("alfworld").task_ids("train", 0, args.sessions))
    result["session_kb"] = _session_kb(sessions)
    result["session_kb_same_game"] = _session_kb([sessions[0]] * args.sessions)
    result = {k: round(v, 4) if isinstance(v, float) else v for k, v in result.items()}
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:28} {value}")
    return result


if __name__ == "__main__":
    main(sys.argv[1:])
