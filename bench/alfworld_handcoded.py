"""ALFWorld's own loader and handcoded expert on exported generated games.

Exports a generated split (2.1.2 dialect, ALFWorld 0.4.2's layout), collects it with ALFWorld's
`AlfredTWEnv.collect_game_files` on its base_config.yaml paths, and plays every game with
ALFWorld's handcoded expert inside ALFWorld's own wrappers (demangler, infos, `AlfredExpert`) on
TextWorld, up to --steps commands a game. Prints games, collected, won (per task type) and steps.

    python bench/alfworld_handcoded.py --json [--split valid_unseen] [--games N] [--steps 100]

Needs the alfworld extra. Slow: TextWorld resets take seconds on full floor plans.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any


def handcoded_expert_env() -> Any:
    import textworld
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredExpert, AlfredInfos
    from textworld.envs import PddlEnv

    infos = textworld.EnvInfos(admissible_commands=True, won=True, facts=True, extras=["gamefile", "expert_plan"])
    return AlfredExpert(AlfredInfos(AlfredDemangler(PddlEnv(infos), shuffle=False)), expert_type="handcoded")


def run(split: str, games: int | None, steps: int, seed: int) -> dict[str, Any]:
    from alfworld.agents.environment.alfred_tw_env import AlfredTWEnv

    from coevo.envs.alfworld.tasks import GeneratedCatalog
    from coevo.envs.alfworld.export import export_game

    catalog = GeneratedCatalog()
    count = catalog.sizes[split] if games is None else games
    out = Path(tempfile.mkdtemp(prefix="alfworld-export-"))
    paths = [export_game(catalog.scene(split, i), out, split, i, "2.1.2") for i in range(count)]
    os.environ["ALFWORLD_DATA"] = str(out)
    key = {"train": "data_path", "valid_seen": "eval_id_data_path", "valid_unseen": "eval_ood_data_path"}[split]
    mode = {"train": "train", "valid_seen": "eval_in_distribution", "valid_unseen": "eval_out_of_distribution"}[split]
    loader = AlfredTWEnv.__new__(AlfredTWEnv)
    loader.config = {
        "dataset": {key: f"$ALFWORLD_DATA/json_2.1.1/{split}", "num_train_games": -1, "num_eval_games": -1},
        "env": {"task_types": [1, 2, 3, 4, 5, 6], "goal_desc_human_anns_prob": 0},
    }
    loader.train_eval = mode
    loader.collect_game_files()
    random.seed(seed)  # the expert's fallback when it repeats itself is a random admissible command
    env = handcoded_expert_env()
    per_task: dict[str, list[int]] = {}
    won = total_steps = 0
    for path in paths:
        task_type = json.loads((path.parent / "traj_data.json").read_text())["task_type"]
        env.load(str(path))
        state = env.reset()
        taken = 0
        while not state["won"] and taken < steps:
            state, _, _ = env.step(state["extra.expert_plan"][0])
            taken += 1
        row = per_task.setdefault(task_type, [0, 0])
        row[0] += 1
        row[1] += bool(state["won"])
        won += bool(state["won"])
        total_steps += taken
    return {
        "split": split,
        "games": count,
        "collected": len(loader.game_files),
        "won": won,
        "steps": total_steps,
        "max_steps": steps,
        "per_task_games_won": per_task,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--split", default="valid_unseen", choices=["train", "valid_seen", "valid_unseen"])
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    result = run(args.split, args.games, args.steps, args.seed)
    result["seconds"] = round(time.perf_counter() - start, 1)
    print(json.dumps(result) if args.json else json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
