"""The real engine: TextWorld's PDDL environment with ALFWorld's name demangler.

Needs the `alfworld` extra (alfworld 0.4.2, textworld 1.7, fast-downward). This is the stack
ALFWorld itself plays games on (`PddlEnv` wrapped in `AlfredDemangler`), driven one game at a
time. Every environment holds a private copy of the planner library (the library keeps global
state), and unloading a copy while another is loaded crashes the process at exit, so copies are
never unloaded: a closed session hands its environment back to a process-wide pool and the next
session reuses it. The number of library copies is the peak number of concurrent TextWorld
sessions, not the number of resets (servers that build a fresh environment on every reset and
never close the old one grow without bound).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@contextmanager
def _keep_alfworld_data() -> Iterator[None]:
    """Importing alfworld sets $ALFWORLD_DATA to its cache folder; undo that."""
    before = os.environ.get("ALFWORLD_DATA")
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("ALFWORLD_DATA", None)
        else:
            os.environ["ALFWORLD_DATA"] = before


def available() -> bool:
    """Whether the real engine can run here."""
    try:
        with _keep_alfworld_data():
            import alfworld.agents.environment.alfred_tw_env  # noqa: F401
            import fast_downward  # noqa: F401
            import textworld.envs  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class TextWorldStep:
    feedback: str
    admissible: list[str]
    won: bool


_POOL: list[Any] = []
_POOL_LOCK = threading.Lock()


def _new_environment() -> Any:
    with _keep_alfworld_data():
        import textworld
        from alfworld.agents.environment.alfred_tw_env import AlfredDemangler
        from textworld.envs import PddlEnv

    infos = textworld.EnvInfos(admissible_commands=True, won=True)
    return AlfredDemangler(PddlEnv(infos), shuffle=False)


class TextWorldGame:
    """One TextWorld PDDL environment, loaded with one game at a time."""

    def __init__(self) -> None:
        with _POOL_LOCK:
            env = _POOL.pop() if _POOL else None
        self._env = env if env is not None else _new_environment()
        self._loaded: Any = None

    def load(self, game: str | Path | dict) -> None:
        """A path to a game.tw-pddl file, or its parsed JSON."""
        data = json.loads(Path(game).read_text()) if isinstance(game, (str, Path)) else game
        self._env.load(data)
        self._loaded = data

    def reset(self) -> TextWorldStep:
        state = self._env.reset()
        return TextWorldStep(state.feedback, list(state.admissible_commands), bool(state["won"]))

    def step(self, command: str) -> TextWorldStep:
        state, _, _ = self._env.step(command)
        return TextWorldStep(state.feedback, list(state.admissible_commands), bool(state["won"]))

    def close(self) -> None:
        """Free the loaded game's planner state and hand the environment back to the pool."""
        env, self._env = self._env, None
        if env is None:
            return
        lib = getattr(env.unwrapped, "downward_lib", None)
        if lib is not None and self._loaded is not None:
            lib.cleanup()
        with _POOL_LOCK:
            _POOL.append(env)
