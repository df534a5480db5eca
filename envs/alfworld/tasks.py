"""The task source: ALFWorld's splits, generated games, knob-addressed games, real game files.

Splits: like ALFRED, `train` and `valid_seen` are laid out in the same floor plans and
`valid_unseen` in four floor plans neither ever uses (10, 219, 308, 424: one kitchen, living
room, bedroom and bathroom). ALFRED's test floor plans (9, 29, 215, 226, 315, 325, 404, 425) are
used by no split. Default sizes and the task-type mix of each split are ALFWorld's (3553 / 140 /
134 games). `valid_train` is the fourth folder of ALFWorld's json_2.1.1 data, the one AgentGym
evaluates on (its `mappings_test.json`, indices 2420-2619): 200 games in seen floor plans, none
of them in AgentGym's train mapping, with that file's task-type mix.

- Generated: task `<split>-<index>` is `generate(knobs, seed_of(split, index))` with the task
  type dealt by the split's ALFWorld mix and the split's floor plans. The seed derives from the
  id alone, so any process regenerates the same game from it and nothing is stored.
- Knob-addressed (for curricula and the GenEnv simulator): `gen-<seed>` is the game the
  env's knobs give for that seed; `gen-<seed>?task_type=pick_two_obj_and_place&max_receptacles=6`
  overrides knobs (same names, meanings and bounds as `generator.Knobs`); the seed is at most
  2**63 - 1.
- Real: ALFWorld's own games under `$ALFWORLD_DATA/json_2.1.*/<split>/` (the four above),
  selected as ALFWorld selects them (the six task types, no movable/sliced variants, marked
  solvable); task id = the game's folder relative to the json root.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from coevo.envs.alfworld.generator import Knobs, generate
from coevo.envs.alfworld.scene import Scene
from coevo.envs.alfworld.scoring import TASK_TYPES

UNSEEN_FLOORPLANS: tuple[int, ...] = (10, 219, 308, 424)
TEST_FLOORPLANS: tuple[int, ...] = (9, 29, 215, 226, 315, 325, 404, 425)
ALL_FLOORPLANS: tuple[int, ...] = tuple([*range(1, 31), *range(201, 231), *range(301, 331), *range(401, 431)])
SEEN_FLOORPLANS: tuple[int, ...] = tuple(
    n for n in ALL_FLOORPLANS if n not in UNSEEN_FLOORPLANS and n not in TEST_FLOORPLANS
)

SPLITS: tuple[str, ...] = ("train", "valid_seen", "valid_unseen", "valid_train")
DEFAULT_SIZES: dict[str, int] = {"train": 3553, "valid_seen": 140, "valid_unseen": 134, "valid_train": 200}
#: Games per task type in ALFWorld's splits, in scoring.TASK_TYPES order; valid_train's are
#: those of the 200 games AgentGym's mappings_test.json names (commit 3ef9235).
TYPE_COUNTS: dict[str, tuple[int, ...]] = {
    "train": (790, 308, 650, 459, 533, 813),
    "valid_seen": (35, 13, 27, 16, 25, 24),
    "valid_unseen": (24, 18, 31, 23, 21, 17),
    "valid_train": (46, 19, 37, 25, 28, 45),
}
FLOORPLANS: dict[str, tuple[int, ...]] = {
    "train": SEEN_FLOORPLANS,
    "valid_seen": SEEN_FLOORPLANS,
    "valid_unseen": UNSEEN_FLOORPLANS,
    "valid_train": SEEN_FLOORPLANS,
}


def task_id(split: str, index: int) -> str:
    return f"{split}-{index}"


def parse_task_id(tid: str) -> tuple[str, int] | None:
    split, sep, index = tid.rpartition("-")
    if not sep or split not in SPLITS or not index.isdigit():
        return None
    return split, int(index)


def seed_of(split: str, index: int, salt: int = 0) -> int:
    """The generator seed of a task: stable across processes and Python versions."""
    digest = hashlib.sha256(f"alfworld:{salt}:{split}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def type_sequence(split: str, size: int) -> bytes:
    """The task type (index into scoring.TASK_TYPES) of every game of a split of `size` games.

    Totals follow ALFWorld's counts scaled to `size` (largest remainder; exactly the real counts
    at the real size), dealt interleaved so that any prefix has about the real mix.
    """
    counts = TYPE_COUNTS[split]
    total = sum(counts)
    shares = [c * size / total for c in counts]
    targets = [int(s) for s in shares]
    by_remainder = sorted(range(len(counts)), key=lambda t: (-(shares[t] - targets[t]), t))
    for t in by_remainder[: size - sum(targets)]:
        targets[t] += 1
    dealt = [0] * len(counts)
    out = bytearray()
    for i in range(size):
        t = max(
            (t for t in range(len(counts)) if dealt[t] < targets[t]),
            key=lambda t: (targets[t] * (i + 1) / size - dealt[t], -t),
        )
        dealt[t] += 1
        out.append(t)
    return bytes(out)


def sizes_from(option: Mapping[str, int] | None) -> dict[str, int]:
    sizes = dict(DEFAULT_SIZES)
    for split, size in (option or {}).items():
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}; known: {', '.join(SPLITS)}")
        if int(size) < 0:
            raise ValueError(f"split size must be >= 0, got {size}")
        sizes[split] = int(size)
    return sizes


CUSTOM_PREFIX = "gen-"
#: Largest seed of a `gen-<seed>` task id (a signed 64-bit integer, as every seed).
MAX_GEN_SEED = 2**63 - 1
_SOLVABLE = re.compile(rb'"solvable":\s*true')


def knobs_from(values: Mapping[str, Any], base: Knobs | None = None) -> Knobs:
    """Knobs from strings or values (CLI options, query strings, JSON)."""
    base = base or Knobs()
    fields = {f.name for f in dataclasses.fields(Knobs)}
    changes: dict[str, Any] = {}
    for key, value in values.items():
        if key not in fields:
            raise ValueError(f"unknown knob {key!r}; knobs: {', '.join(sorted(fields))}")
        if isinstance(value, str):
            text = value.strip()
            if text.lower() in ("", "none", "null"):
                value = None
            elif key == "floorplans":
                value = tuple(int(v) for v in text.replace("+", ",").split(",") if v)
            elif key in ("max_receptacles", "distractors", "max_instances", "phrasing"):
                value = int(text)
            elif key == "closed":
                value = float(text)
            elif key == "hide_target":
                if text.lower() not in ("true", "false", "1", "0"):
                    raise ValueError(f"hide_target must be true or false, got {value!r}")
                value = text.lower() in ("true", "1")
            else:
                value = text
        elif key == "floorplans" and value is not None:
            value = tuple(int(v) for v in value)
        changes[key] = value
    return dataclasses.replace(base, **changes)


class GeneratedCatalog:
    """ALFWorld-sized splits of generated games (any sizes on request)."""

    def __init__(self, sizes: Mapping[str, int] | None = None, knobs: Knobs | None = None, salt: int = 0) -> None:
        self.sizes = sizes_from(sizes)
        self.knobs = knobs or Knobs()
        self.salt = salt
        self._types = {split: type_sequence(split, n) for split, n in self.sizes.items()}
        for split in SPLITS:
            self._floorplans(split)  # fail early on knobs that leave a split no floor plan

    def _floorplans(self, split: str) -> tuple[int, ...]:
        plans = FLOORPLANS[split]
        if self.knobs.floorplans:
            plans = tuple(p for p in plans if p in self.knobs.floorplans)
            if not plans:
                raise ValueError(f"knob floorplans leaves split {split} no floor plan (it uses {FLOORPLANS[split]})")
        return plans

    def task_ids(self, split: str, offset: int, limit: int | None) -> list[str]:
        stop = self.sizes[split] if limit is None else min(self.sizes[split], offset + limit)
        return [f"{split}-{i}" for i in range(max(0, offset), stop)]

    def owns(self, task_id: str) -> str | None:
        """The split of a task id of this catalog, or None."""
        parsed = parse_task_id(task_id)
        if parsed and parsed[1] < self.sizes[parsed[0]]:
            return parsed[0]
        return None

    def task_type(self, split: str, index: int) -> str:
        return self.knobs.task_type or TASK_TYPES[self._types[split][index]]

    def scene(self, split: str, index: int) -> Scene:
        knobs = dataclasses.replace(
            self.knobs, task_type=self.task_type(split, index), floorplans=self._floorplans(split)
        )
        return generate(knobs, seed_of(split, index, self.salt))

    def custom_scene(self, task_id: str) -> Scene:
        """`gen-<seed>[?knob=value&...]`."""
        head, _, query = task_id[len(CUSTOM_PREFIX) :].partition("?")
        if not head.isdigit():
            raise ValueError(f"bad generated task id {task_id!r}: expected gen-<seed>[?knob=value&...]")
        if int(head) > MAX_GEN_SEED:
            raise ValueError(f"the seed of a generated task id is at most {MAX_GEN_SEED}")
        knobs = knobs_from(dict(parse_qsl(query, keep_blank_values=True)), self.knobs)
        return generate(knobs, int(head))

    def describe(self, split: str, index: int) -> dict[str, Any]:
        return {
            "task_type": self.task_type(split, index),
            "source": "generated",
            "floorplans": "unseen" if split == "valid_unseen" else "seen",
        }


#: AgentGym's mapping files, in its index order, and the json_2.1.1 folder each one's games lie in.
AGENTGYM_MAPPINGS: tuple[tuple[str, str], ...] = (
    ("mappings_train.json", "train"),
    ("mappings_test.json", "valid_train"),
)


def agentgym_games(folder: str | Path) -> list[str]:
    """Task ids (`<split>/<task folder>/<trial>`) of AgentGym's ALFWorld games in its index order.

    AgentGym's server (agentenv-alfworld's `ALFWorld_Wrapper`, commit 3ef9235) lists the entries
    of its configs/mappings_train.json as games under `json_2.1.1/train`, then those of
    mappings_test.json under `json_2.1.1/valid_train`, each file in its own order, and a reset
    plays entry `game` of that list: a position, not the entries' `item_id` (the two agree in
    its files: 0-2419, then 2420-2619). The files are data, not a rule over the games: the train
    file names 2,420 of the train games in an order that is not sorted, the test file 200
    valid_train games in shuffled order. So the user passes a copy of them (`folder`: AgentGym's
    `agentenv-alfworld/configs`); none ship with coevo.
    """
    root = Path(folder).expanduser()
    games: list[str] = []
    for name, split in AGENTGYM_MAPPINGS:
        path = root / name
        try:
            entries = json.loads(path.read_text())
        except FileNotFoundError:
            raise FileNotFoundError(
                f"{path}: no AgentGym mapping file (agentgym_mappings names the folder holding "
                f"{' and '.join(n for n, _ in AGENTGYM_MAPPINGS)})"
            ) from None
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not JSON ({exc})") from None
        if not isinstance(entries, list):
            raise ValueError(f"{path}: expected a list of {{item_id, task_type, task_id}} entries")
        for i, entry in enumerate(entries):
            parts = [entry.get(key) if isinstance(entry, dict) else None for key in ("task_type", "task_id")]
            if not all(
                isinstance(part, str) and part and "/" not in part and "\\" not in part and part not in (".", "..")
                for part in parts
            ):
                raise ValueError(f"{path}: entry {i} needs task_type and task_id, each one folder name: {entry!r}")
            games.append(f"{split}/{parts[0]}/{parts[1]}")
    return games


class RealCatalog:
    """ALFWorld's game files under a data folder.

    `admit`: task ids to serve even where ALFWorld's selection drops them (AgentGym's mapped
    games: its server plays the file a mapping names, marked solvable or not); those whose file
    exists join their split after the selected ones, sorted.
    """

    def __init__(self, data_path: str | Path, admit: Sequence[str] = ()) -> None:
        self.root = Path(data_path).expanduser()
        jsons = sorted(p for p in self.root.glob("json_2.1.*") if p.is_dir())
        bases = jsons or [self.root]
        self.games: dict[str, list[str]] = {split: [] for split in SPLITS}
        self.paths: dict[str, Path] = {}
        for base in bases:
            for split in SPLITS:
                for game in sorted((base / split).glob("*/*/game.tw-pddl")):
                    task_dir = game.parent.parent.name
                    if "movable" in str(game) or "Sliced" in str(game):
                        continue
                    if task_dir.split("-", 1)[0] not in TASK_TYPES:
                        continue
                    if not _SOLVABLE.search(game.read_bytes()):
                        continue
                    tid = f"{split}/{task_dir}/{game.parent.name}"
                    if tid not in self.paths:
                        self.games[split].append(tid)
                        self.paths[tid] = game
        if not self.paths:
            raise FileNotFoundError(f"no solvable ALFWorld games under {self.root} (expected json_2.1.1/<split>/...)")
        for tid in sorted(set(admit) - set(self.paths)):
            split = tid.split("/", 1)[0]
            found = next((g for base in bases if (g := base / tid / "game.tw-pddl").is_file()), None)
            if split in self.games and found is not None:
                self.games[split].append(tid)
                self.paths[tid] = found

    @property
    def sizes(self) -> dict[str, int]:
        return {split: len(ids) for split, ids in self.games.items()}

    def task_ids(self, split: str, offset: int, limit: int | None) -> list[str]:
        ids = self.games[split]
        return ids[offset:] if limit is None else ids[offset : offset + limit]

    def owns(self, task_id: str) -> str | None:
        return task_id.split("/", 1)[0] if task_id in self.paths else None

    def describe(self, task_id: str) -> dict[str, Any]:
        task_dir = task_id.split("/")[1]
        parts = task_dir.split("-")
        info: dict[str, Any] = {"task_type": parts[0], "source": "alfworld", "path": str(self.paths[task_id])}
        if len(parts) == 5:
            info.update(
                object=parts[1], receptacle=parts[3], floorplan=int(parts[4]) if parts[4].isdigit() else parts[4]
            )
        return info
