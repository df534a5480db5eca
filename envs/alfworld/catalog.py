"""Where the env's games come from: generated splits, knob-addressed games, real game files.

- Generated: task `<split>-<index>` is `generate(knobs, seed_of(split, index))` with the task
  type dealt by the split's ALFWorld mix and the split's floor plans. Nothing is stored; a
  game is rebuilt from its id.
- Knob-addressed (for curricula and the GenEnv simulator): `gen-<seed>` is the game the
  env's knobs give for that seed; `gen-<seed>?task_type=pick_two_obj_and_place&max_receptacles=6`
  overrides knobs (same names and meanings as `generator.Knobs`).
- Real: ALFWorld's own games under `$ALFWORLD_DATA/json_2.1.*/{train,valid_seen,valid_unseen}/`,
  selected as ALFWorld selects them (the six task types, no movable/sliced variants, marked
  solvable); task id = the game's folder relative to the json root.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from coevo.envs.alfworld.generator import Knobs, generate
from coevo.envs.alfworld.goals import TASK_TYPES
from coevo.envs.alfworld.scene import Scene
from coevo.envs.alfworld.splits import FLOORPLANS, SPLITS, parse_task_id, seed_of, sizes_from, type_sequence

CUSTOM_PREFIX = "gen-"
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
        knobs = dataclasses.replace(self.knobs, task_type=self.task_type(split, index),
                                    floorplans=self._floorplans(split))
        return generate(knobs, seed_of(split, index, self.salt))

    def custom_scene(self, task_id: str) -> Scene:
        """`gen-<seed>[?knob=value&...]`."""
        head, _, query = task_id[len(CUSTOM_PREFIX):].partition("?")
        if not head.isdigit():
            raise ValueError(f"bad generated task id {task_id!r}: expected gen-<seed>[?knob=value&...]")
        knobs = knobs_from(dict(parse_qsl(query, keep_blank_values=True)), self.knobs)
        return generate(knobs, int(head))

    def describe(self, split: str, index: int) -> dict[str, Any]:
        return {"task_type": self.task_type(split, index), "source": "generated",
                "floorplans": "unseen" if split == "valid_unseen" else "seen"}


class RealCatalog:
    """ALFWorld's game files under a data folder."""

    def __init__(self, data_path: str | Path) -> None:
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

    @property
    def sizes(self) -> dict[str, int]:
        return {split: len(ids) for split, ids in self.games.items()}

    def task_ids(self, split: str, offset: int, limit: int | None) -> list[str]:
        ids = self.games[split]
        return ids[offset:] if limit is None else ids[offset: offset + limit]

    def owns(self, task_id: str) -> str | None:
        return task_id.split("/", 1)[0] if task_id in self.paths else None

    def describe(self, task_id: str) -> dict[str, Any]:
        task_dir = task_id.split("/")[1]
        parts = task_dir.split("-")
        info: dict[str, Any] = {"task_type": parts[0], "source": "alfworld", "path": str(self.paths[task_id])}
        if len(parts) == 5:
            info.update(object=parts[1], receptacle=parts[3], floorplan=int(parts[4]) if parts[4].isdigit() else parts[4])
        return info
