"""The `alfworld` env: ALFWorld's household tasks on the native engine or the real one.

Observations, admissible commands, rewards and episode ends are ALFWorld's: the welcome text
with the room and the task at reset; the engine's feedback after each command ("Nothing
happens." when the command is not admissible, which wastes the step); reward 1 and the end of
the episode when the goal holds; at most 50 steps. `info["available_actions"]` lists the
admissible commands.

Options (all optional; strings are accepted, for `--option key=value`):

- `backend`: "native" (default) or "textworld" (the real engine; needs the `alfworld` extra).
- `games`: "generated" (default) or "alfworld" (the real game files under `data_path`).
- `data_path`: ALFWorld's data folder (default `$ALFWORLD_DATA`), for `games=alfworld`.
- `agentgym_mappings`: with `games=alfworld`, the folder holding a copy of AgentGym's
  `mappings_train.json` and `mappings_test.json` (its `agentenv-alfworld/configs`): AgentGym's
  item indices then name the games those files name (`tasks.agentgym_games`). Without it the
  AgentGym routes refuse item indices on real games rather than serve other games under them.
- `train_size`, `valid_seen_size`, `valid_unseen_size`, `valid_train_size`: generated split
  sizes (default ALFWorld's 3553 / 140 / 134, and 200 for valid_train, AgentGym's test games).
- `knobs`: generator knobs for every generated game (a dict, a JSON object, or
  `key=value&key=value`); see `generator.Knobs`. Task ids `gen-<seed>?knob=value&...` pick
  a single game by seed and knobs (what the GenEnv simulator uses).
- `dialect`: text dialect of generated games, "2.1.2" (default; ALFWorld 0.4's `move X to Y`,
  "You arrive at fridge 1.") or "2.1.1" (the older `put X in/on Y`, "You arrive at loc 12.").
  Real games speak the dialect their file declares.
- `aliases`: also take the other dialect's put command (`put X in/on Y` <-> `move X to Y`).
  Default false: the real engine answers the other dialect's command with "Nothing happens.".
  Sessions of the AgentGym routes play generated games in 2.1.1 with AgentGym's text
  processing and index mapping (envs/alfworld/agentgym.py); real games keep their own dialect.
- `cache`: how many compiled games to keep per process (default 512).
- `salt`: varies every generated game while keeping split sizes and mixes (default 0).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from coevo.envs.alfworld import agentgym, engine, expert, scoring
from coevo.envs.alfworld.dialects import DEFAULT_DIALECT, Dialect, UnknownDialect
from coevo.envs.alfworld.dialects import dialect as dialect_named
from coevo.envs.alfworld.game import Game, compile_game
from coevo.envs.alfworld.gamefile import load_game_file
from coevo.envs.alfworld.generator import GenerationError
from coevo.envs.alfworld.scene import Scene
from coevo.envs.alfworld.tasks import CUSTOM_PREFIX, GeneratedCatalog, RealCatalog, agentgym_games, knobs_from
from coevo.envs.base import Env, EnvError, ResetResult, StepResult, UnknownSplit, UnknownTask
from coevo.envs.options import flag
from coevo.wire import AgentPrompt

if TYPE_CHECKING:
    from coevo.envs.alfworld.textworld_backend import TextWorldGame

CUSTOM_SPLIT = "custom"
_PUT = re.compile(r"^put (.+) in/on (.+)$")
_MOVE = re.compile(r"^move (.+) to (.+)$")


class BackendUnavailable(EnvError):
    code = "backend_unavailable"


def _knobs_option(value: Any) -> dict[str, Any]:
    if value is None or value == "":
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    text = str(value).strip()
    if text.startswith("{"):
        return json.loads(text)
    return dict(parse_qsl(text, keep_blank_values=True))


class GameCache:
    """A small thread-safe LRU of compiled games (a server's sessions share them)."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Game | None:
        with self._lock:
            game = self._games.get(key)
            if game is not None:
                self._games.move_to_end(key)
            return game

    def put(self, key: str, game: Game) -> None:
        with self._lock:
            self._games[key] = game
            self._games.move_to_end(key)
            while len(self._games) > self.size:
                self._games.popitem(last=False)


@dataclass
class Shared:
    backend: str
    dialect: Dialect
    aliases: bool
    generated: GeneratedCatalog | None
    real: RealCatalog | None
    cache: GameCache
    #: AgentGym's games in its index order (task ids of `real`), from the user's mapping files.
    agentgym_games: list[str] | None = None

    @property
    def sizes(self) -> dict[str, int]:
        return (self.real or self.generated).sizes  # type: ignore[union-attr]


class AlfWorldEnv(Env):
    name = "alfworld"
    version = "1"
    action_format = (
        "one admissible command, e.g. 'go to fridge 1', 'open fridge 1', 'take apple 1 from "
        "countertop 2', 'move apple 1 to fridge 1', 'heat apple 1 with microwave 1', 'use desklamp 1'"
    )
    max_steps = 50
    default_split = "train"
    action_example = ("The task needs an apple; apples are often on the countertop.", "go to countertop 1")
    agent_prompt = AgentPrompt.from_file(Path(__file__).parent / "data" / "agent_prompt.json")
    heldout_splits = ("valid_unseen", "valid_seen", "valid_train")
    cpu_heavy = True
    agentgym_profile = agentgym.PROFILE
    #: The TextWorld engine of backend=textworld, made at the first reset.
    _tw: TextWorldGame | None = None

    # ------------------------------------------------------------------ shared data
    @classmethod
    def load_shared(
        cls,
        backend: str = "native",
        games: str = "generated",
        data_path: str | None = None,
        train_size: int | str | None = None,
        valid_seen_size: int | str | None = None,
        valid_unseen_size: int | str | None = None,
        valid_train_size: int | str | None = None,
        agentgym_mappings: str | None = None,
        knobs: Any = None,
        dialect: str = DEFAULT_DIALECT,
        aliases: Any = False,
        cache: int | str = 512,
        salt: int | str = 0,
        **_: Any,
    ) -> Shared:
        if backend not in ("native", "textworld"):
            raise ValueError(f"unknown backend {backend!r}: native or textworld")
        if backend == "textworld":
            from coevo.envs.alfworld.textworld_backend import available

            if not available():
                raise BackendUnavailable("backend=textworld needs the alfworld extra: pip install 'coevo[alfworld]'")
        try:
            chosen = dialect_named(dialect)
        except UnknownDialect as exc:
            raise ValueError(str(exc)) from None
        generated = real = None
        mapped: list[str] | None = None
        if games == "generated":
            if agentgym_mappings:
                raise ValueError(
                    "agentgym_mappings maps AgentGym's indices onto ALFWorld's game files: it needs games=alfworld"
                )
            sizes = {
                split: int(n)
                for split, n in (
                    ("train", train_size),
                    ("valid_seen", valid_seen_size),
                    ("valid_unseen", valid_unseen_size),
                    ("valid_train", valid_train_size),
                )
                if n not in (None, "")
            }
            generated = GeneratedCatalog(sizes, knobs_from(_knobs_option(knobs)), int(salt))
        elif games == "alfworld":
            path = data_path or os.environ.get("ALFWORLD_DATA")
            if not path:
                raise ValueError("games=alfworld needs data_path or $ALFWORLD_DATA")
            mapped = agentgym_games(agentgym_mappings) if agentgym_mappings else None
            real = RealCatalog(path, admit=mapped or ())
        else:
            raise ValueError(f"unknown games {games!r}: generated or alfworld")
        return Shared(backend, chosen, flag(aliases), generated, real, GameCache(int(cache)), mapped)

    # ------------------------------------------------------------------ catalogue
    def splits(self) -> Mapping[str, int]:
        return self.shared.sizes

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        if split not in self.shared.sizes:
            raise UnknownSplit(f"unknown split {split!r}; known: {sorted(self.shared.sizes)}")
        catalog = self.shared.real or self.shared.generated
        return catalog.task_ids(split, offset, limit)

    def split_of(self, task_id: str) -> str:
        shared = self.shared
        if shared.generated is not None and task_id.startswith(CUSTOM_PREFIX):
            return CUSTOM_SPLIT
        split = (shared.real or shared.generated).owns(task_id)
        if split is None:
            raise UnknownTask(f"unknown task id {task_id!r}")
        return split

    def describe_task(self, task_id: str) -> dict[str, Any]:
        shared = self.shared
        split = self.split_of(task_id)
        if shared.real is not None:
            return shared.real.describe(task_id)
        if split == CUSTOM_SPLIT:
            return {"source": "generated", "spec": task_id}
        index = int(task_id.rpartition("-")[2])
        return shared.generated.describe(split, index)

    def agentgym_task(self, index: int) -> str | None:
        """On real games, the game AgentGym's mapping files give index `index` (None: generated
        games, whose indices follow the profile's ranges; envs/alfworld/agentgym.py)."""
        shared = self.shared
        if shared.real is None:
            return None
        games = shared.agentgym_games
        if games is None:
            raise UnknownTask(
                "on ALFWorld's own games AgentGym's indices name games through its mapping files: "
                "pass -o agentgym_mappings=<folder with mappings_train.json and mappings_test.json>"
            )
        if index >= len(games):
            raise UnknownTask(f"task index {index} is past AgentGym's mapping files ({len(games)} games)")
        task_id = games[index]
        if task_id not in shared.real.paths:
            raise UnknownTask(
                f"AgentGym's index {index} names {task_id}/game.tw-pddl, which is not under {shared.real.root}"
            )
        return task_id

    # ------------------------------------------------------------------ games
    def _scene(self, task_id: str) -> Scene:
        gen = self.shared.generated
        try:
            if task_id.startswith(CUSTOM_PREFIX):
                return gen.custom_scene(task_id)
            split, _, index = task_id.rpartition("-")
            return gen.scene(split, int(index))
        except (GenerationError, ValueError) as exc:
            raise UnknownTask(f"cannot generate {task_id!r}: {exc}") from None

    def _dialect(self) -> Dialect:
        """The dialect generated games speak in this session: AgentGym's on its routes."""
        return dialect_named(agentgym.DIALECT) if self.agentgym else self.shared.dialect

    def _game(self, task_id: str) -> Game:
        chosen = self._dialect()
        key = task_id if chosen is self.shared.dialect else f"{task_id}#{chosen.name}"
        game = self.shared.cache.get(key)
        if game is None:
            if self.shared.real is not None:
                gf = load_game_file(self.shared.real.paths[task_id])
                game = compile_game(gf.scene, gf.dialect)
            else:
                game = compile_game(self._scene(task_id), chosen)
            self.shared.cache.put(key, game)
        return game

    def _game_data(self, task_id: str) -> Any:
        """What the TextWorld backend loads: a real game's path, or an exported generated game."""
        if self.shared.real is not None:
            return self.shared.real.paths[task_id]
        from coevo.envs.alfworld.export import game_data

        return game_data(self._scene(task_id), self._dialect().name)

    def _textworld(self) -> TextWorldGame:
        tw = self._tw
        if tw is None:
            from coevo.envs.alfworld.textworld_backend import TextWorldGame

            tw = self._tw = TextWorldGame()
        return tw

    # ------------------------------------------------------------------ episode
    def _reset(self, task_id: str, seed: int) -> ResetResult:
        game = self._game(task_id)
        self.game = game
        self.state = engine.State(game)
        self._commands = engine.commands(game, self.state)
        if self.shared.backend == "textworld":
            tw = self._textworld()
            tw.load(self._game_data(task_id))
            first = tw.reset()
            observation, commands = first.feedback, first.admissible
        else:
            observation, commands = engine.intro(game, self.state), sorted(self._commands)
        info = {
            "task": game.task,
            "task_type": game.goal.task_type,
            "dialect": game.dialect.name,
            "available_actions": commands,
            "won": False,
        }
        if self.agentgym:
            observation = agentgym.reset_text(observation)
        return ResetResult(observation, info)

    def normalize(self, action: str) -> str:
        """The command the engine sees: stripped, with the other dialect's put form translated."""
        command = action.strip()
        if self.shared.aliases:
            game_dialect = self.game.dialect
            m = (_PUT if game_dialect.put_command.startswith("move") else _MOVE).match(command)
            if m:
                command = game_dialect.put(m.group(1), m.group(2))
        return command

    def _step(self, action: str) -> StepResult:
        command = self.normalize(action)
        game, state = self.game, self.state
        chosen = self._commands.get(command)
        if chosen is None:
            feedback = engine.NOTHING_HAPPENS
        else:
            feedback = engine.apply(game, state, chosen)
            self._commands = engine.commands(game, state)
        won = scoring.won(game, state)
        commands = sorted(self._commands)
        if self.shared.backend == "textworld":
            real = self._textworld().step(command)
            feedback, commands, won = real.feedback, real.admissible, real.won
        info = {"available_actions": commands, "won": won, "admissible": chosen is not None}
        if self.agentgym:
            feedback = agentgym.step_text(feedback)
        return StepResult(feedback, 1.0 if won else 0.0, won, info=info)

    # ------------------------------------------------------------------ expert
    def expert_turn(self) -> expert.Turn | None:
        """The expert's next ReAct turn (thought and action), for behavioural-cloning data."""
        if self.task_id is None or self.done:
            return None
        return expert.next_turn(self.game, self.state, with_opening=self.steps == 0)

    def expert_action(self) -> str | None:
        turn = self.expert_turn()
        return turn.action if turn else None

    def close(self) -> None:
        tw = self._tw
        if tw is not None:
            tw.close()
            self._tw = None
