"""A run's directory: config.json, metrics.jsonl and the rule for resuming.

Re-running a trainer with the same output directory resumes it. That is only sound when the
saved config and the new one agree on everything that changes results; the fields a config
class lists in `RESUMABLE_CHANGES` (more epochs, server URLs, thread counts) may differ.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from coevo.trainer_config import TrainerConfig


class ConfigMismatch(ValueError):
    """The directory holds a run whose config differs in fields that change results."""


def write_json(path: Path, data: Any, indent: int = 1) -> None:
    """Write `data` to `path` through a temporary file and a rename, so a reader (or a resumed
    run) sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=indent, default=list))
    os.replace(tmp, path)


class RunDirectory:
    """The files every trainer's run directory holds; trainers add their own paths on top."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    @property
    def config(self) -> Path:
        return self.root / "config.json"

    @property
    def metrics(self) -> Path:
        return self.root / "metrics.jsonl"

    def saved_config(self, kind: type[TrainerConfig]) -> TrainerConfig | None:
        """The config the directory's run was started with (None: a new directory)."""
        return kind.load(self.config) if self.config.is_file() else None

    def changed_fields(self, config: TrainerConfig) -> set[str]:
        """Fields in which `config` differs from the saved one and which a resume may not change."""
        saved = self.saved_config(type(config))
        if saved is None:
            return set()
        mine, theirs = config.to_dict(), saved.to_dict()
        return {k for k in mine if mine[k] != theirs.get(k)} - set(config.RESUMABLE_CHANGES)

    def begin(self, config: TrainerConfig, *, write: bool = True) -> None:
        """Refuse to resume a run with a different config, then save `config` (`write`: the
        process that writes, under several processes)."""
        changed = self.changed_fields(config)
        if changed:
            raise ConfigMismatch(
                f"{self.root} holds a run with a different config ({', '.join(sorted(changed))}); "
                "use another --output-dir"
            )
        if write:
            write_json(self.config, config.to_dict())
