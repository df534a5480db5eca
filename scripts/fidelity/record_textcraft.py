"""Run AgentGym's TextCraft server code once: export its crafting facts, record its episodes.

AgentGym's `agentenv-textcraft` (github WooooDyy/AgentGym, not vendored: pass the folder that
holds `agentenv-textcraft/`) builds its crafting tree from Minecraft's recipe JSON files in the
order `os.listdir` returns them, and draws each task's distractor recipes and line order through
sets of strings. Both make its output machine- and process-dependent: the directory order
changes which recipes a cycle check drops and the order of tasks of equal depth, the string hash
seed changes the distractors and the line order. This script pins both (files in name order,
PYTHONHASHSEED=0; it re-runs itself with that seed) and then

* `data`: writes the tree as the original built it (envs/textcraft/data/crafting_tree.json) and
  the original's 544 tasks (goal, depth, crafting commands; envs/textcraft/data/tasks.json);
* `episodes`: replays action sequences (our expert's, random and invalid ones, steps after the
  goal) on the original env and writes inputs and outputs to
  tests/textcraft/data/original_episodes.json, which tests/textcraft/test_fidelity.py replays.

    PYTHONPATH=<a venv's site-packages with gymnasium> \\
        .venv/bin/python scripts/fidelity/record_textcraft.py /tmp/AgentGym data|episodes
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "envs" / "textcraft" / "data"
EPISODES = ROOT / "tests" / "textcraft" / "data" / "original_episodes.json"

#: AgentGym indices whose episodes are recorded: both ends, every depth, and the wrap-around.
INDICES = [0, 1, 2, 7, 50, 99, 120, 200, 260, 300, 333, 380, 420, 470, 500, 530, 543, 544, 1000]

INVALID = [
    "",
    "look around",
    "Inventory",
    "inventory please",
    "get planks",
    "get 1 planks",
    "get 2 oak planks",
    "get 0 oak log",
    "inventory",
    "get 3 unobtainium",
    "get 1 stick",
    "craft stick using planks",
    "craft 4 stick using 2 planks",
    "get 5 oak log",
    "craft 4 planks using 1 oak log",
    "craft 4 oak planks using 2 oak log",
    "craft 4 oak planks using 1 oak log, 1 dirt",
    "craft 1 unobtainium using 1 oak log",
    "craft 9 gold nugget using one gold ingot",
    "craft 1 crafting table using 4 oak planks using 1 oak log",
    "craft 4 oak planks using 1 oak log",
    "craft 4 stick using 1 oak planks, 1 oak planks",
    "craft 4 stick using 2 planks",
    "craft 99 stick using 2 oak planks",
    "craft 4 birch planks using 1 oak log",
    "craft oak planks using 1 oak log",
    "craft 4 oak planks using 1 oak log,",
    "get 1 oak log\nget 2 oak log",
    "get 00002 oak log",
    "get 1 oak_log",
    "get 1 minecraft:oak log",
    "inventory",
]


def _load_original(checkout: Path) -> Any:
    """The original package, its tree built from the recipe files in name order."""
    root = checkout / "agentenv-textcraft"
    sys.path.insert(0, str(root))
    os.chdir(root)  # its env_wrapper builds a tree from the relative "agentenv_textcraft/" on import
    listdir = os.listdir
    os.listdir = lambda path=".": sorted(listdir(path))  # type: ignore[assignment,misc]
    import agentenv_textcraft
    from agentenv_textcraft.crafting_tree import CraftingTree

    tree = CraftingTree(minecraft_dir=str(root / "agentenv_textcraft"))
    os.listdir = listdir  # type: ignore[assignment]
    return agentenv_textcraft, tree


def _recipe(recipe: Any) -> dict[str, Any]:
    out = recipe.output_item
    return {
        "inputs": [[i.item_tag.tag, i.item_tag.item_id, i.count] for i in recipe.input_items],
        "output": [out.item_tag.tag, out.item_tag.item_id, out.count],
    }


def export_data(module: Any, tree: Any) -> None:
    crafting = {
        "source": "AgentGym agentenv-textcraft's CraftingTree over its Minecraft recipe files, loaded in name order",
        "itemid_recipes": {k: [_recipe(r) for r in v] for k, v in tree.itemid_recipes.items()},
        "tag_recipes": sorted(tree.tag_recipes),
        "tag_set": sorted(tree.tag_set),
        "itemid_set": sorted(tree.itemid_set),
        "item_id_to_tag": tree.item_id_to_tag,
    }
    env = module.TextCraftEnv(crafting_tree=tree, commands=None, goal=None)
    goals = sorted(tree.item_recipes_min_depth(1), key=lambda x: x[1])
    tasks = []
    for index in range(len(goals)):
        observation, _ = env.reset(data_idx=index)
        commands = observation.split("\n\nGoal: craft ")[0].removeprefix("Crafting commands:\n")
        tasks.append({"index": index, "goal": env.goal, "depth": goals[index][1], "commands": commands.split("\n")})
        assert observation == f"Crafting commands:\n{commands}\n\nGoal: craft {module.item_id_to_str(env.goal)}."
    DATA.mkdir(parents=True, exist_ok=True)
    (DATA / "crafting_tree.json").write_text(json.dumps(crafting, indent=0) + "\n", encoding="utf-8")
    (DATA / "tasks.json").write_text(
        json.dumps({"source": crafting["source"] + ", PYTHONHASHSEED=0", "tasks": tasks}, indent=0) + "\n",
        encoding="utf-8",
    )
    print(f"wrote {len(tree.itemid_recipes)} crafted items, {len(tasks)} tasks")


def _random_action(rng: random.Random, names: list[str], expert: str | None, held: list[str]) -> str:
    """A random command: often the expert's, or the expert's with a count or an item changed,
    else a get or craft of random or held items."""
    kind = rng.randrange(6)
    if expert is not None and kind == 0:
        return expert
    if expert is not None and kind == 1:  # the expert's command with one number changed
        numbers = [i for i, w in enumerate(expert.split()) if w.isdigit()]
        words = expert.split()
        i = rng.choice(numbers)
        words[i] = str(max(0, int(words[i]) + rng.choice((-1, 1, 3))))
        return " ".join(words)
    a = rng.choice(held) if held and rng.random() < 0.6 else rng.choice(names)
    b = rng.choice(held) if held and rng.random() < 0.6 else rng.choice(names)
    if kind == 2:
        return f"get {rng.randrange(0, 5)} {a}"
    if kind == 3:
        return f"craft {rng.randrange(1, 5)} {a} using {rng.randrange(1, 9)} {b}"
    if kind == 4:
        return "inventory"
    return f"craft 1 {a} using 1 {b}, {rng.randrange(1, 4)} {rng.choice(names)}"


def record_episodes(module: Any, tree: Any) -> None:
    from coevo.envs.registry import make

    ours = make("textcraft")
    names = sorted({n.removeprefix("minecraft:").replace("_", " ") for n in tree.itemid_set | tree.tag_set})
    rng = random.Random(38)
    episodes = []
    for index in INDICES:
        for kind in ("expert", "random", "invalid"):
            original = module.TextCraftEnv(crafting_tree=tree, commands=None, goal=None)
            observation, _ = original.reset(data_idx=index)
            ours.reset(task_id=f"textcraft-{index % 544}")
            steps = []
            actions: list[str]
            if kind == "invalid":
                actions = list(INVALID)
            else:
                actions = []
            for i in range(60):
                if kind == "expert":
                    action = ours.expert_action()
                    if action is None:
                        break
                elif kind == "random":
                    if i >= 25:
                        break
                    assert ours.game is not None
                    held = [n.removeprefix("minecraft:").replace("_", " ") for n in ours.game.inventory]
                    action = _random_action(rng, names, ours.expert_action(), held)
                elif i < len(actions):
                    action = actions[i]
                else:
                    break
                obs, reward, terminated, _, _ = original.step(action)
                ours.step(action, after_done=True)
                steps.append({"action": action, "observation": obs, "reward": reward, "done": terminated})
                if kind == "expert" and terminated:  # the original keeps no end state: two more steps
                    for extra in ("inventory", action):
                        obs, reward, terminated, _, _ = original.step(extra)
                        steps.append({"action": extra, "observation": obs, "reward": reward, "done": terminated})
                    break
            episodes.append({"index": index, "kind": kind, "observation": observation, "steps": steps})
    EPISODES.parent.mkdir(parents=True, exist_ok=True)
    EPISODES.write_text(json.dumps({"episodes": episodes}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(episodes)} episodes, {sum(len(e['steps']) for e in episodes)} steps")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agentgym", type=Path, help="a folder holding AgentGym's agentenv-textcraft/")
    parser.add_argument("what", choices=["data", "episodes"])
    args = parser.parse_args()
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        sys.exit(subprocess.run([sys.executable, *sys.argv], env=env).returncode)
    module, tree = _load_original(args.agentgym.resolve())
    if args.what == "data":
        export_data(module, tree)
    else:
        record_episodes(module, tree)


if __name__ == "__main__":
    main()
