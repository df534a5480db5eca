"""The generation backends of local models, as a table (data/backends.json): each backend's
policy class, how to tell whether the host has its engine, what it needs, and which options it
takes. Choosing a backend reads the table, so a new backend is one entry plus its modules.

The table names policy classes as "module:Class" strings; the core only reads them, and the
client's factory imports them (the core never imports the client)."""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

#: The table of backends.
BACKENDS_FILE = Path(__file__).parent / "data" / "backends.json"
#: Overrides "auto" for every command and trainer.
BACKEND_ENV = "COEVO_POLICY_BACKEND"


@dataclass(frozen=True)
class Backend:
    """One row of the table (see data/backends.json's `_doc` for the fields)."""

    name: str
    policy: str
    installed: str | None
    needs_cuda: bool
    missing: str
    in_memory_on: tuple[str, ...] | None
    weight_sync: str
    options: frozenset[str]

    def is_installed(self) -> bool:
        """Whether this host has the backend's engine (its `installed` function says so)."""
        if self.installed is None:
            return True
        check: Callable[[], bool] = load_object(self.installed)
        return bool(check())

    def serves_in_memory(self, device_type: str) -> bool:
        """Whether a trainer's in-memory model on `device_type` can be served by this backend."""
        return self.in_memory_on is None or device_type in self.in_memory_on

    def options_of(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options this backend takes (the rest of a command's options are for other policies)."""
        return {k: v for k, v in options.items() if k in self.options}


@dataclass(frozen=True)
class Registry:
    backends: dict[str, Backend]
    #: Per host kind ("cuda", "cpu"), the backends "auto" tries in order.
    auto: dict[str, tuple[str, ...]]
    auto_help: str
    in_memory_fallback: str
    #: Per host kind ("cuda", "cpu"), rows one batched generate call takes (held-out scoring,
    #: sampling passes): a GPU takes every pending prompt, a CPU small batches.
    batch_rows: dict[str, int]


def load_object(reference: str) -> Any:
    """The object a "module:name" reference names."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


@cache
def registry(path: Path = BACKENDS_FILE) -> Registry:
    data = json.loads(path.read_text(encoding="utf-8"))
    backends = {
        name: Backend(
            name=name,
            policy=row["policy"],
            installed=row["installed"],
            needs_cuda=bool(row["needs_cuda"]),
            missing=row["missing"],
            in_memory_on=None if row["in_memory_on"] is None else tuple(row["in_memory_on"]),
            weight_sync=row["weight_sync"],
            options=frozenset(row["options"]),
        )
        for name, row in data["backends"].items()
    }
    auto = {kind: tuple(names) for kind, names in data["auto"].items()}
    for names in auto.values():
        unknown = set(names) - set(backends)
        if unknown:
            raise ValueError(f"{path}: auto names unknown backends {sorted(unknown)}")
    batch_rows = {kind: int(rows) for kind, rows in data["batch_rows"].items()}
    return Registry(backends, auto, data["auto_help"], data["in_memory_fallback"], batch_rows)


def backend(name: str) -> Backend:
    return registry().backends[name]


#: Engine settings: auto, then every backend of the table.
BACKENDS: tuple[str, ...] = ("auto", *registry().backends)
BACKEND_HELP = f"Local models' engine: auto ({registry().auto_help}) | " + " | ".join(registry().backends)


def choose_backend(setting: str, *, cuda: bool, **installed: bool) -> str:
    """The engine for a setting on a host with (or without) a CUDA GPU, given which engines are
    installed (`vllm=True, llamacpp=False`, ...; an engine not named counts as installed): a named
    engine if the host can run it (else ValueError with the table's reason); auto: the first
    engine of the table's order for the host kind that it can run."""
    table = registry()
    if setting not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {setting!r}")

    def runs(name: str) -> bool:
        return installed.get(name, True) and (cuda or not table.backends[name].needs_cuda)

    if setting != "auto":
        if not runs(setting):
            raise ValueError(table.backends[setting].missing)
        return setting
    for name in table.auto["cuda" if cuda else "cpu"]:
        if runs(name):
            return name
    raise ValueError("no backend of the table runs on this host")


def batch_rows(device_type: str) -> int:
    """Rows per batched generate call on a host kind ("cuda", anything else counts as "cpu")."""
    rows = registry().batch_rows
    return rows["cuda"] if device_type == "cuda" else rows["cpu"]


def host_batch_rows() -> int:
    """batch_rows for this host: its CUDA GPU if it has one, else its CPUs."""
    import torch

    return batch_rows("cuda" if torch.cuda.is_available() else "cpu")


def resolve_backend(setting: str | None = None) -> str:
    """The engine a local model runs on: `setting` (or $COEVO_POLICY_BACKEND), with auto decided
    by the hardware and what is installed (choose_backend)."""
    import torch

    setting = setting or os.environ.get(BACKEND_ENV) or "auto"
    installed = {name: spec.is_installed() for name, spec in registry().backends.items()}
    return choose_backend(setting, cuda=torch.cuda.is_available(), **installed)
