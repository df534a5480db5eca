"""AgentGym compatibility, declared per env: how an env's AgentGym server answers.

AgentGym's env servers (`agentenv-*`) differ in their response shapes, their task indices and
their rules. An env that mirrors one declares an `AgentGymProfile` in its own folder
(envs/<name>/agentgym.py) and sets it as its class's `agentgym_profile`; the server's AgentGym
routes (server/compat.py) read nothing else about the env, so a new AgentGym env touches no file
outside its folder. Envs that declare nothing get `AgentGymProfile()`: AgentGym's id style over
the catalogue in split order.

The profile is a typed description (the route style, the index ranges, the `GET /` answer, the
server's rules). What a description cannot say, such as a field AgentGym's /reset adds for the
episode just started, an adapter answers: a small object composed around one session's env
(Gymnasium's wrapper idea), named by the profile. The env itself only learns, through its
`agentgym` flag, that a session presents AgentGym's server-side text; its text is its own affair.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from coevo.wire import AgentGymRouteStyle

if TYPE_CHECKING:
    from coevo.envs.base import Env

E = TypeVar("E", bound="Env")


class AgentGymAdapter(Generic[E]):
    """What AgentGym's server answers beyond the env's own results, for one session's env.

    The defaults fit a server that answers with the env's results and indexes its tasks by the
    profile's ranges; an env subclasses this in envs/<name>/agentgym.py for what differs.
    """

    def __init__(self, env: E, profile: AgentGymProfile) -> None:
        self.env = env
        self.profile = profile

    def task(self, index: int) -> str:
        """The task id AgentGym's item `index` names: by the profile's ranges (index i of the
        range starting at s is task i - s of its split), else the splits in catalogue order,
        concatenated (AgentGym's household server's train, then test games). Raises UnknownTask."""
        from coevo.envs.base import UnknownTask  # base imports this module for its default profile

        env = self.env
        splits = env.splits()
        ranges = self.profile.indices
        if ranges:
            for (split, start), following in zip(ranges, [*ranges[1:], (None, None)]):
                stop = following[1]
                if index >= start and (stop is None or index < stop):
                    offset = index - start
                    if offset >= splits.get(split, 0):
                        raise UnknownTask(
                            f"task index {index} is task {offset} of split {split!r},"
                            f" which has {splits.get(split, 0)} tasks"
                        )
                    return env.task_ids(split, offset, 1)[0]
            raise UnknownTask(f"task index {index} is in none of AgentGym's ranges {list(ranges)}")
        base = 0
        for split, count in splits.items():
            if index < base + count:
                return env.task_ids(split, index - base, 1)[0]
            base += count
        raise UnknownTask(f"task index {index} is out of range (the catalogue has {base} tasks)")

    def observation(self) -> str | None:
        """What AgentGym's /observation answers now; None: the latest observation."""
        return None

    def reset_fields(self) -> dict[str, Any]:
        """Fields AgentGym's id-style /reset adds for the episode just started; default none."""
        return {}

    def step_fields(self) -> dict[str, Any]:
        """Fields AgentGym's id-style /step adds after the step just taken (AgentGym's SciWorld
        server's `score`, which its client reads); default none."""
        return {}

    def instruction_text(self) -> str | None:
        """What AgentGym's `/instruction_text` answers now; None: its server has no such route."""
        return None

    def read(self, route: str) -> Any:
        """What AgentGym's `GET /<route>` answers now, for a route the profile lists in `reads`
        (JSON-able)."""
        raise KeyError(f"{type(self).__name__} answers no GET /{route}")


class AgentGymProfile(BaseModel):
    """How the AgentGym server an env mirrors answers (docs/protocol.md, "AgentGym's routes")."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    #: The response shapes of the routes: "id" (AgentGym's ALFWorld, BabyAI, SciWorld servers),
    #: "env_idx" (its WebShop and SQLGym servers) or "env_idx_item" (its search server: the
    #: session in env_idx, an item index in id).
    style: AgentGymRouteStyle = "id"
    #: AgentGym's task indices as (split, first index) ranges in index order, as its mapping
    #: files lay them out. Empty: the splits in catalogue order, concatenated.
    indices: tuple[tuple[str, int], ...] = ()
    #: What `GET /` answers (None: "This is environment <name>.").
    hello: str | None = None
    #: False: the routes answer with exactly the fields the env's AgentGym server sends (no
    #: first observation in /create's answer, no task_id / done / reward in /reset's, no info
    #: in /step's; /detail is its record); True: ours added, which AgentGym's clients ignore.
    extra_fields: bool = True
    #: True: /step carries the step's info (as AgentGym's SQL server's); False: `info: null` in
    #: the env_idx styles (its shop and search servers).
    step_info: bool = False
    #: True: a session takes steps after its episode ended, as AgentGym's shop and search
    #: servers do (they keep no end state); the native routes still answer 409.
    steps_after_done: bool = False
    #: Where AgentGym's server refuses a finished episode with HTTP 200 and `{"error": ...}`
    #: (its household server, on /step, /observation, /available_actions and /detail), that
    #: message, `{id}` standing for the session id; None: 409 (or the steps go on, above).
    finished_error: str | None = None
    #: The /reset body field that carries the task index where AgentGym's server names it by
    #: none of `game`, `data_idx`, `session_id`, `item_id` and `idx` (LMRL-Gym's Wordle server:
    #: `seed`, which then picks the task and is no seed of ours); None: those.
    reset_index_field: str | None = Field(default=None, pattern=r"^[a-z_]+$")
    #: GET routes beyond the common ones where AgentGym's server answers session state (its
    #: Wordle server's `filtered_vocab`): `GET /<route>?id=` answers the adapter's `read(route)`.
    reads: tuple[str, ...] = ()
    #: The adapter composed around a session's env for what the fields above cannot say.
    adapter: type[AgentGymAdapter] = Field(default=AgentGymAdapter)

    @model_validator(mode="after")
    def _consistent(self) -> AgentGymProfile:
        starts = [start for _, start in self.indices]
        if any(start < 0 for start in starts) or starts != sorted(set(starts)):
            raise ValueError(f"indices: first indices must be non-negative and increasing, got {starts}")
        taken = {"", "create", "step", "reset", "observation", "available_actions", "detail", "close"}
        bad = [r for r in self.reads if r in taken or not r.replace("_", "").isalpha() or not r.islower()]
        if bad:
            raise ValueError(
                f"reads: {bad} are no route names of their own (lower-case letters and _, not a common route)"
            )
        if self.finished_error is not None:
            try:
                self.finished_error.format(id="session")
            except (KeyError, IndexError, ValueError) as exc:
                raise ValueError(f"finished_error: only {{id}} may be substituted ({exc!r})") from None
            if self.steps_after_done:
                raise ValueError("finished_error and steps_after_done contradict: a finished episode is refused or not")
        return self

    def hello_text(self, env_name: str) -> str:
        """AgentGym's `GET /` answer for this env."""
        return f"This is environment {env_name}." if self.hello is None else self.hello

    def adapt(self, env: E) -> AgentGymAdapter[E]:
        """The adapter for one session's env."""
        return self.adapter(env, self)
