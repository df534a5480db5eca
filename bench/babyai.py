"""BabyAI benchmark: the expert's rate over every item, reset and step latency beside AgentGym's
own server code, and memory per live session.

In process (the HTTP layer is the platform's, measured by bench/server.py): the expert (BabyAI's
bot in AgentGym's text actions) plays each item up to the env's step cap; every item it does
not finish is listed with its level and the reason (the expert had no text action for the bot's
next move, or the step cap came first). Reset and step latency are those plays' wall clock.
With --agentgym (an AgentGym checkout) and --agentgym-python (a venv with agentenv-babyai's
pins, see scripts/fidelity/record_babyai.py), the first --agentgym-items plays' resets and
actions are timed again on AgentGym's server object in that interpreter, and the ratios are ours
over theirs on those same plays. Memory per
session: tracemalloc over --sessions live envs, each reset and stepped a few times (a
separate pass: --sessions 0 skips it, and a smaller count gives the same per-session figure).

    python bench/babyai.py --json [--items 900] [--sessions 1000] [--progress items.jsonl]
        [--agentgym /path/to/AgentGym --agentgym-python /tmp/babyai-orig/bin/python]
Targets: every unsolved item explained; sessions_1000_mb < 2048.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from coevo.envs.babyai.env import BabyAIEnv
from measure import percentile

#: Timed on AgentGym's server object in its own interpreter: the same resets and actions.
ORIGINAL_TIMER = """
import json, sys, time
sys.path.insert(0, sys.argv[1] + "/agentenv-babyai")
from agentenv_babyai.environment import BabyAIEnv
plays = json.load(open(sys.argv[2]))
server = BabyAIEnv()
sid = server.create()["id"]
resets, steps = [], []
for play in plays:
    t = time.perf_counter(); server.reset(sid, play["index"]); resets.append((time.perf_counter() - t) * 1000)
    for action in play["actions"]:
        t = time.perf_counter(); server.step(sid, action); steps.append((time.perf_counter() - t) * 1000)
print(json.dumps({"reset_ms": resets, "step_ms": steps}))
"""


def play_all(
    items: int, progress: Path | None = None, budget_s: float | None = None
) -> tuple[list[dict[str, Any]], list[float], list[float], list[dict[str, Any]]]:
    """The expert on items 0..items-1: (plays, reset ms, step ms, one row per item). With
    `progress`, one JSON row per item is appended as it finishes, and items already in the
    file are not played again (a cut run resumes; its latency figures are this run's plays).
    With `budget_s`, no item is started after that many seconds (the rows cover what was played)."""
    started = time.monotonic()
    env = BabyAIEnv()
    rows: dict[int, dict[str, Any]] = {}
    if progress is not None and progress.exists():
        for line in progress.read_text().splitlines():
            row = json.loads(line)
            rows[int(row["task_id"].removeprefix("babyai_"))] = row
    plays, resets, steps = [], [], []
    for index in range(items):
        if index in rows:
            continue
        if budget_s is not None and time.monotonic() - started > budget_s:
            break
        t = time.perf_counter()
        env.reset(task_id=f"babyai_{index}")
        resets.append((time.perf_counter() - t) * 1000)
        actions: list[str] = []
        reason = ""
        best = 0.0  # the highest reward a step gave: a mission accomplished too slowly shows here
        while not env.done:
            action = env.expert_action()
            if action is None:
                expert = getattr(env, "_expert", None)
                reason = (expert.failure if expert else None) or "no expert action"
                break
            t = time.perf_counter()
            result = env.step(action)
            steps.append((time.perf_counter() - t) * 1000)
            actions.append(action)
            best = max(best, result.reward)
            if result.truncated and not result.done:
                reason = f"step cap ({env.max_steps}) reached"
        plays.append({"index": index, "actions": actions})
        game = env.game
        assert game is not None
        if game.accomplished and not game.done:
            reason = (
                f"mission accomplished with a reward of {best:.3f}, not above 0.5 (too many low-level moves):"
                " AgentGym's rule does not end it"
                if best > 0
                else "the level ended the mission as failed (reward 0)"
            )
        row = {
            "task_id": f"babyai_{index}",
            "level": env.shared.task(index).level,
            "steps": len(actions),
            "low_steps": sum(len(m) for m in game.moves),
            "done": game.done,
            "reward": round(game.reward, 4),
        }
        if not game.done:
            row["reason"] = reason
        rows[index] = row
        if progress is not None:
            with progress.open("a") as f:
                f.write(json.dumps(row) + "\n")
    return plays, resets, steps, [rows[i] for i in sorted(rows) if i < items]


def original_latency(checkout: Path, python: str, plays: list[dict[str, Any]]) -> dict[str, list[float]]:
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(plays, f)
        f.flush()
        out = subprocess.run(
            [python, "-W", "ignore", "-c", ORIGINAL_TIMER, str(checkout), f.name],
            capture_output=True,
            text=True,
            check=True,
        )
    found = next(line for line in out.stdout.splitlines() if line.startswith('{"reset_ms"'))
    return json.loads(found)


def session_kib(sessions: int) -> float:
    """Python heap (numpy's arrays included) per live env that took a reset and 3 steps."""
    shared = BabyAIEnv.load_shared()
    warm = BabyAIEnv(shared=shared)
    warm.reset(task_id="babyai_0")
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    envs = []
    for i in range(sessions):
        env = BabyAIEnv(shared=shared)
        env.reset(task_id=f"babyai_{i % 900}")
        for action in ("turn left", "move forward", "turn right"):
            env.step(action)
        envs.append(env)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    return grown / sessions / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=900, help="items the expert plays (0..items-1)")
    parser.add_argument(
        "--sessions", type=int, default=1000, help="live envs for the memory figure (0: skip it; it is slow under load)"
    )
    parser.add_argument("--progress", type=Path, help="append one JSON line per item played to this file")
    parser.add_argument("--budget-s", type=float, help="start no item after this many seconds (then report)")
    parser.add_argument("--agentgym", type=Path, help="an AgentGym checkout, to time its server code")
    parser.add_argument("--agentgym-python", default=sys.executable, help="the interpreter with its pins")
    parser.add_argument("--agentgym-items", type=int, default=80, help="plays timed on AgentGym's server (the first)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with contextlib.redirect_stdout(io.StringIO()):  # minigrid prints its rejected level samples
        plays, resets, steps, rows = play_all(args.items, args.progress, args.budget_s)
        kib = session_kib(args.sessions) if args.sessions > 0 else None
    unsolved = [row for row in rows if not row["done"]]
    solved = [row for row in rows if row["done"]]
    out: dict[str, Any] = {
        "items": len(rows),
        "of_items": args.items,
        "played_now": len(plays),
        "expert_rate": round(len(solved) / len(rows), 4),
        "solved_text_steps_mean": round(statistics.mean(r["steps"] for r in solved), 2) if solved else None,
        "solved_low_steps_mean": round(statistics.mean(r["low_steps"] for r in solved), 2) if solved else None,
        "solved_reward_mean": round(statistics.mean(r["reward"] for r in solved), 4) if solved else None,
        "expert_steps": len(steps),
        "reset_p50_ms": round(statistics.median(resets), 3) if resets else None,
        "step_p50_ms": round(statistics.median(steps), 3) if steps else None,
        "step_p99_ms": round(percentile(steps, 0.99), 3) if steps else None,
        "unsolved": unsolved,
    }
    if kib is not None:
        out["sessions"] = args.sessions
        out["session_kib"] = round(kib, 1)
        out["sessions_1000_mb"] = round(kib * 1000 / 1024, 1)
    if args.agentgym:
        timed = plays[: args.agentgym_items]
        theirs = original_latency(args.agentgym, args.agentgym_python, timed)
        ours_reset = resets[: len(timed)]
        ours_steps = steps[: sum(len(p["actions"]) for p in timed)]
        out["timed_items"] = len(timed)
        out["timed_reset_p50_ms"] = round(statistics.median(ours_reset), 3)
        out["timed_step_p50_ms"] = round(statistics.median(ours_steps), 3)
        out["agentgym_reset_p50_ms"] = round(statistics.median(theirs["reset_ms"]), 3)
        out["agentgym_step_p50_ms"] = round(statistics.median(theirs["step_ms"]), 3)
        out["reset_p50_ratio"] = round(out["timed_reset_p50_ms"] / out["agentgym_reset_p50_ms"], 3)
        out["step_p50_ratio"] = round(out["timed_step_p50_ms"] / out["agentgym_step_p50_ms"], 3)
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
