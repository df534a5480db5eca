"""Env registry by name.

Built-in envs are listed as import paths so that listing names imports nothing heavy; third
parties register with `register()` or the `coevo.envs` entry-point group.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.metadata import entry_points
from typing import Any

from coevo.envs.base import Env

#: name -> "module:Class". One line per built-in env.
BUILTIN: dict[str, str] = {
    "academia": "coevo.envs.academia.env:AcademiaEnv",
    "alfworld": "coevo.envs.alfworld.env:AlfWorldEnv",
    "apibank": "coevo.envs.apibank.env:ApiBankEnv",
    "bfcl": "coevo.envs.bfcl.env:BfclEnv",
    "birdsql": "coevo.envs.birdsql.env:BirdSqlEnv",
    "maze": "coevo.envs.maze.env:MazeEnv",
    "movie": "coevo.envs.movie.env:MovieEnv",
    "sciworld": "coevo.envs.sciworld.env:SciWorldEnv",
    "searchqa": "coevo.envs.searchqa.env:SearchQAEnv",
    "simulator": "coevo.envs.simulator.env:SimulatorEnv",
    "textcraft": "coevo.envs.textcraft.env:TextCraftEnv",
    "todo": "coevo.envs.todo.env:TodoEnv",
    "travelplanner": "coevo.envs.travelplanner.env:TravelPlannerEnv",
    "weather": "coevo.envs.weather.env:WeatherEnv",
    "webshop": "coevo.envs.webshop.env:WebShopEnv",
    "wordle": "coevo.envs.wordle.env:WordleEnv",
}


@dataclass(frozen=True)
class EnvSpec:
    name: str
    entry_point: str
    defaults: dict[str, Any] = field(default_factory=dict)

    def load(self) -> type[Env]:
        module, _, attr = self.entry_point.partition(":")
        cls = getattr(importlib.import_module(module), attr)
        if not (isinstance(cls, type) and issubclass(cls, Env)):
            raise TypeError(f"{self.entry_point} is not an Env subclass")
        return cls


_SPECS: dict[str, EnvSpec] = {}


def register(name: str, entry_point: str | type[Env], **defaults: Any) -> None:
    """Register an env under `name`; `entry_point` is a class or "module:Class"."""
    if isinstance(entry_point, type):
        entry_point = f"{entry_point.__module__}:{entry_point.__qualname__}"
    _SPECS[name] = EnvSpec(name, entry_point, dict(defaults))
    _shared.cache_clear()


def _load_plugins() -> None:
    for name, path in BUILTIN.items():
        _SPECS.setdefault(name, EnvSpec(name, path))
    for ep in entry_points(group="coevo.envs"):
        _SPECS.setdefault(ep.name, EnvSpec(ep.name, ep.value))


def names() -> list[str]:
    _load_plugins()
    return sorted(_SPECS)


def spec(name: str) -> EnvSpec:
    """The spec for a registered name, or for a "module:Class" path given directly."""
    _load_plugins()
    if name not in _SPECS and ":" in name:
        return EnvSpec(name, name)
    try:
        return _SPECS[name]
    except KeyError:
        raise KeyError(f"unknown env {name!r}; registered: {', '.join(sorted(_SPECS))}") from None


def _freeze(options: dict[str, Any]) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in options.items()))


@lru_cache(maxsize=None)
def _shared(name: str, frozen: tuple) -> tuple[type[Env], Any, dict[str, Any]]:
    s = spec(name)
    cls = s.load()
    options = {**s.defaults, **_OPTIONS[frozen]}
    return cls, cls.load_shared(**options), options


_OPTIONS: dict[tuple, dict[str, Any]] = {}


def make(name: str, **options: Any) -> Env:
    """A new env instance; data shared between instances is loaded once per (name, options)."""
    frozen = _freeze(options)
    _OPTIONS[frozen] = options
    cls, shared, merged = _shared(name, frozen)
    return cls(shared=shared, **merged)
