"""The environment protocol every benchmark implements.

One `Env` instance is one episode runner (a server keeps one per session), so its own state
must stay small. Data every episode reads — task sets, catalogs, search indexes — is built once
per process by `load_shared()` and handed to each instance as `self.shared`.

Subclasses implement `_reset` and `_step`; the base class owns the parts that must behave the
same everywhere: choosing a task from a seed, counting steps, the max-steps truncation, refusing
steps after the end, and snapshot/restore by deterministic replay.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, Field


class _AdminPathMarker:
    """Field metadata: this admin payload field is a filesystem path the command reads."""

    def __repr__(self) -> str:
        return "AdminPath"


ADMIN_PATH = _AdminPathMarker()
#: A path in an admin payload model. The server accepts only paths under its admin directory
#: (`ServerConfig.admin_dir`) and hands the command the checked, symlink-free path.
AdminPath = Annotated[str, Field(min_length=1), ADMIN_PATH]

from coevo.envs.agentgym import AgentGymProfile
from coevo.wire import AgentPrompt


class EnvError(Exception):
    """Base class for errors an env reports to its caller (the server maps them to HTTP)."""

    code: ClassVar[str] = "env_error"


class UnknownTask(EnvError, KeyError):
    code = "unknown_task"

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown task"


class UnknownSplit(EnvError, KeyError):
    code = "unknown_split"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown split"


class UnknownCommand(EnvError, KeyError):
    code = "unknown_command"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown command"


class UnknownTool(EnvError, KeyError):
    """A tool call names a function the running episode does not offer, lacks an argument the
    env's action text needs, or makes more calls than one step takes."""

    code = "unknown_tool"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown tool"


class InvalidPayload(EnvError):
    """An admin command's payload has wrong types or out-of-range values (HTTP 422)."""

    code = "invalid_request"


class EpisodeNotStarted(EnvError):
    code = "episode_not_started"


class EpisodeFinished(EnvError):
    code = "episode_finished"


@dataclass
class ResetResult:
    observation: str
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class StepResult:
    observation: str
    reward: float
    done: bool
    truncated: bool = False
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EpisodeTool:
    """One function the running episode offers an agent (tool-calling envs), as MCP and
    OpenAI-style tool lists describe it: `parameters` is a JSON Schema object."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ToolCall:
    """One call of an `EpisodeTool`: its name and JSON arguments."""

    name: str
    arguments: Mapping[str, Any]


def seed_to_index(seed: int, count: int) -> int:
    """The task a bare seed selects: stable across processes and Python versions."""
    return random.Random(seed).randrange(count)


class Env(ABC):
    """A benchmark environment. Subclass it, set the class attributes, implement the hooks."""

    #: Registry name, e.g. "alfworld".
    name: ClassVar[str]
    #: Bumped whenever observations or rewards change for the same task and actions.
    version: ClassVar[str] = "1"
    #: One line telling an agent (or a person) what an action looks like.
    action_format: ClassVar[str] = "free text"
    #: One concrete action and the thought that could lead to it: the worked example agents'
    #: prompts show (small models copy "<placeholder>" templates word for word instead).
    action_example: ClassVar[tuple[str, str]] = ("", "")
    #: How agents are prompted and their replies read (instruction, one-line actions, expert
    #: thoughts, action-list folding); served by /info. The default is the generic prompt built
    #: from action_format and action_example. Envs keep theirs in data/agent_prompt.json.
    agent_prompt: ClassVar[AgentPrompt] = AgentPrompt()
    #: How this env's AgentGym-compatible routes answer (envs/agentgym.py): an env mirroring one
    #: of AgentGym's servers declares its profile in envs/<name>/agentgym.py.
    agentgym_profile: ClassVar[AgentGymProfile] = AgentGymProfile()
    #: Episode cap; the step that reaches it returns truncated=True unless it ended the episode.
    #: Not a ClassVar: an instance may set its own from its options (searchqa's max_searches).
    max_steps: int = 50
    #: Split used when a reset names neither task nor split.
    default_split: ClassVar[str] = "train"
    #: Splits kept for evaluation: trainers never draw training tasks from them, and held-out
    #: evaluation reads them (the first one present is an env's default held-out split).
    heldout_splits: ClassVar[tuple[str, ...]] = ()
    #: Split training data is drawn from when none is named (None: default_split); never held out.
    train_split: ClassVar[str | None] = None
    #: False for envs whose step is a few microseconds: the server may then run it inline.
    cpu_heavy: ClassVar[bool] = True

    def __init__(self, shared: Any = None, **options: Any) -> None:
        if shared is None:
            shared = type(self).load_shared(**options)
        self.shared = shared
        self.options = options
        self.task_id: str | None = None
        self.split: str | None = None
        self.seed: int | None = None
        self.steps = 0
        self.done = False
        self.actions: list[str] = []
        #: True while the session presents AgentGym's server-side text (its prompt, messages,
        #: dialect): set by the AgentGym routes before a reset, kept by snapshots and marked
        #: in every result's info (`info["agentgym"]`) so a replay rebuilds the same episode.
        #: Envs whose AgentGym server sends what they send ignore it; what the routes answer
        #: beyond the env's results is its `agentgym_profile`'s business, not the env's.
        self.agentgym = False

    # ----------------------------------------------------------------- shared data
    @classmethod
    def load_shared(cls, **options: Any) -> Any:
        """Build the read-only data all sessions of this env share (called once per process)."""
        return None

    #: Payload models of admin commands, by command. The server validates a payload with its
    #: model in strict mode (422 on wrong types or ranges: JSON true is not an integer) and
    #: confines its `AdminPath` fields before calling `admin`. Commands not listed get the raw
    #: payload.
    admin_payloads: ClassVar[Mapping[str, type[BaseModel]]] = {}

    @classmethod
    def admin(cls, shared: Any, command: str, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Operator commands on the shared data (e.g. hot-load new generator weights).

        Served behind a token at POST /admin/{command}; envs without commands keep this default.
        """
        raise UnknownCommand(f"{cls.name} has no admin command {command!r}")

    # ----------------------------------------------------------------- task catalogue
    @abstractmethod
    def splits(self) -> Mapping[str, int]:
        """Split name -> number of tasks."""

    @abstractmethod
    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        """Task ids of one split, in a stable order."""

    def split_of(self, task_id: str) -> str:
        """The split a task belongs to; envs with cheap lookups should override."""
        for split in self.splits():
            if task_id in self.task_ids(split):
                return split
        raise UnknownTask(f"unknown task id {task_id!r}")

    def describe_task(self, task_id: str) -> dict[str, Any]:
        """Catalogue metadata for one task (e.g. its type); shown by GET /tasks."""
        return {}

    # ----------------------------------------------------------------- episode API
    def reset(self, task_id: str | None = None, seed: int | None = None, split: str | None = None) -> ResetResult:
        """Start an episode. A bare seed picks the task, so the same arguments give the same episode."""
        splits = self.splits()
        if task_id is None:
            split = split or self.default_split
            if split not in splits:
                raise UnknownSplit(f"unknown split {split!r}; known: {sorted(splits)}")
            if splits[split] == 0:
                raise UnknownSplit(f"split {split!r} is empty")
            if seed is None:
                seed = random.SystemRandom().randrange(2**31)
            task_id = self.task_ids(split, seed_to_index(seed, splits[split]), 1)[0]
        else:
            found = self.split_of(task_id)
            if split is not None and split != found:
                raise UnknownTask(f"task {task_id!r} is in split {found!r}, not {split!r}")
            split = found
        if seed is None:
            seed = 0
        result = self._reset(task_id, seed)
        self.task_id, self.split, self.seed = task_id, split, seed
        self.steps, self.done, self.actions = 0, False, []
        result.info.setdefault("task_id", task_id)
        result.info.setdefault("split", split)
        result.info.setdefault("seed", seed)
        if self.agentgym:
            result.info["agentgym"] = True
        return result

    def step(self, action: str, *, after_done: bool = False) -> StepResult:
        """Apply one action. Raises EpisodeNotStarted / EpisodeFinished instead of guessing.

        `after_done`: take the step although the episode ended, for a caller whose protocol
        keeps no end state (AgentGym's shop and search servers); it counts like any other.
        """
        if self.task_id is None:
            raise EpisodeNotStarted("call reset before step")
        if self.done and not after_done:
            raise EpisodeFinished("the episode has ended; reset to start another")
        result = self._step(action)
        self.steps += 1
        self.actions.append(action)
        if not result.done and self.steps >= self.max_steps:
            result.truncated = True
        self.done = result.done or result.truncated
        result.info.setdefault("step", self.steps)
        if self.agentgym:
            result.info["agentgym"] = True
        return result

    def expert_action(self) -> str | None:
        """The next action of this env's expert from the current state, or None when it has none.

        Used to generate behavioral-cloning data and by contract tests; it may read privileged
        state (the answer, the simulator), which is why agents never see it in `info`.
        """
        return None

    def episode_tools(self) -> list[EpisodeTool]:
        """The functions the running episode lets an agent call directly (tool-calling envs).

        Served as structured tools (MCP) beside the text action; `tool_calls_action` turns calls
        of them into this env's action text, so a tool call is an ordinary step. Default: none.
        """
        return []

    def tool_calls_action(self, calls: Sequence[ToolCall]) -> str:
        """The action text that makes `calls` in this env's action format (one step).

        Raises UnknownTool for a name the episode does not offer, or for more calls than one of
        this env's steps takes.
        """
        raise UnknownTool(f"{self.name} offers no tools to call; send a text action")

    def close(self) -> None:
        """Release per-episode resources. Shared data stays for the other sessions."""

    # ----------------------------------------------------------------- snapshot / restore
    def snapshot(self) -> dict[str, Any]:
        """A JSON-able description of the current state.

        The default records task, seed and actions, which `restore` replays; deterministic
        envs get fork and crash recovery for free. Envs whose replay is slow can override
        both methods with a direct state copy.
        """
        if self.task_id is None:
            raise EpisodeNotStarted("nothing to snapshot before reset")
        state: dict[str, Any] = {"task_id": self.task_id, "seed": self.seed, "actions": list(self.actions)}
        if self.agentgym:
            state["agentgym"] = True
        return state

    def restore(self, state: Mapping[str, Any]) -> ResetResult | StepResult:
        """Rebuild the state `snapshot` described; returns the last result it reproduced.

        Every recorded action was taken once, so each is replayed, steps after the end included.
        """
        self.agentgym = bool(state.get("agentgym", False))
        result: ResetResult | StepResult = self.reset(task_id=state["task_id"], seed=state["seed"])
        for action in state["actions"]:
            result = self.step(action, after_done=True)
        return result

    # ----------------------------------------------------------------- hooks
    @abstractmethod
    def _reset(self, task_id: str, seed: int) -> ResetResult:
        """Start the given task. Put the task text in info["task"]; available actions, if the env
        has a finite set, in info["available_actions"]."""

    @abstractmethod
    def _step(self, action: str) -> StepResult:
        """Apply one action to the running episode."""
