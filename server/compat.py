"""AgentGym-compatible routes, so an existing AgentGym env client runs unchanged against us.

AgentGym's env servers disagree on the id field: most (its text games) send `id` (in JSON bodies
and as `?id=`), its shop and SQL servers send `env_idx` (docs/server.md lists which). We accept
both everywhere. The response shapes differ too, and a client parses the one its env server
returned, so the server answers in one of two styles:

* ``id`` style: ``/create`` -> ``{"id": ...}``; ``/step`` ->
  ``{"observation", "reward", "done", "available_actions"}``; ``/reset`` -> ``{"id",
  "observation", "available_actions"}``; ``/available_actions`` -> a list.
* ``env_idx`` style: ``/create`` -> the bare id; ``/step`` -> ``{"state",
  "reward", "done", "info"}``; ``/reset`` -> ``[observation, null]``;
  ``/available_actions`` -> ``{"has_search_bar", "clickables"}`` (an env whose info already
  has that shape, as a shop's `get_available_actions()`, is answered with it unchanged: a
  ``search`` button included).
* ``env_idx_item`` style (AgentGym's search server): the session travels in ``env_idx`` and
  ``id`` is an item index: ``/create {"id": i}`` starts item i and returns the bare session
  id; ``/reset {"env_idx", "id"}`` -> the observation string; ``/step`` ->
  ``{"observation", "reward", "done", "info": null}``; ``/close`` -> ``true``.

`ServerConfig.agentgym_style` picks one ("auto": the style of the env's profile,
`Env.agentgym_profile`, envs/agentgym.py).
Ids are our unguessable session ids: AgentGym clients only echo back what /create returned.
Unlike AgentGym's servers, errors keep their HTTP status (AgentGym answers most errors with
200 and an `{"error"}` body, or 500); its clients assert 200, so they fail loudly instead of
silently. The exceptions are what AgentGym's servers answer in a normal episode, declared by
the env's profile: a finished episode (`finished_error`: 200 and that `{"error"}`, or
`steps_after_done`: the steps go on, as servers that keep no end state take them; otherwise
409), and the env_idx_item style's /close of an unknown session (false).

Where AgentGym's servers differ beyond the style, the profile says how: `hello` (the `GET /`
string), `extra_fields` (False: exactly the server's fields, and /detail is its record: the
reset's fields, then the latest state), `step_info` (the step's info instead of null), and its
adapter, composed around the session's env: `reset_fields()` (fields its /reset adds),
`step_fields()` (fields its id-style /step adds),
`observation()` (its /observation) and `instruction_text()` (its /instruction_text, 404 for
envs without one); `reset_index_field` (the /reset field naming the task where it is none of
the usual ones) and `reads` (further GET routes of session state, answered by the adapter's
`read(route)`).

AgentGym resets pick a task by integer index (`game`, `data_idx`, `session_id`, `item_id` or
`idx` depending on the env, `id` in the env_idx_item style); the adapter's `task(index)` names
it: the i-th task of the catalogue with splits in the env's order, the way AgentGym's
household-game server concatenates its train and test games, unless the profile declares
AgentGym's own ranges (`indices`) or the env's adapter resolves indices itself (e.g. through a
user's copy of AgentGym's mapping files). The catalogue indexed is the one an AgentGym session
sees (an instance with `Env.agentgym` set): an env may serve AgentGym's own task list there.

A session created or reset here presents AgentGym's server-side text (`Env.agentgym`: the env
decides what that changes, e.g. its prompt, messages or dialect). It is an ordinary session
otherwise: every native route (step, fork, expert, DELETE) takes the id these routes return.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr
from starlette.responses import Response

from coevo.envs.agentgym import AgentGymAdapter
from coevo.envs.base import Env
from coevo.server.agentgym_extras import check_extras, kept_fields
from coevo.server.errors import InvalidRequest, RouteNotServed, SessionNotFound, error_responses
from coevo.server.leases import Lease
from coevo.server.service import EnvService
from coevo.wire import MAX_INT64, SplitText, TaskIdText

#: A session id or item index as AgentGym clients send it; strict: JSON true is neither (lax
#: validation would read it as 1). A number is bounded like every integer a client sends.
IdValue = Annotated[StrictInt, Field(ge=0, le=MAX_INT64)] | StrictStr


class _AgentGymBody(BaseModel):
    # AgentGym clients send fields for their own env (world_type, commands, goal, ...).
    model_config = ConfigDict(extra="allow")

    id: IdValue | None = Field(None, description="Session id (id-style clients)")
    env_idx: IdValue | None = Field(None, description="Session id (env_idx-style clients)")

    def sid(self) -> str:
        return _pick_id(self.id, self.env_idx)


class AgentGymCreateRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    task_id: TaskIdText | None = None
    split: SplitText | None = None
    seed: int | None = Field(None, ge=0, le=MAX_INT64, strict=True)
    data_idx: int | None = Field(None, ge=0, le=MAX_INT64, description="Task index (AgentGym's data_idx servers)")
    id: IdValue | None = Field(None, description="Item index (env_idx_item style; ignored otherwise)")


class AgentGymStepRequest(_AgentGymBody):
    model_config = ConfigDict(extra="ignore")  # only /reset keeps extras (agentgym_extras.py)

    action: str


class AgentGymResetRequest(_AgentGymBody):
    game: int | None = Field(None, ge=0, le=MAX_INT64, description="Task index (AgentGym's household games)")
    data_idx: int | None = Field(None, ge=0, le=MAX_INT64, description="Task index (AgentGym's text-game servers)")
    session_id: int | None = Field(None, ge=0, le=MAX_INT64, description="Task index (AgentGym's shop)")
    item_id: int | None = Field(None, ge=0, le=MAX_INT64, description="Task index (SQLGym)")
    idx: int | None = Field(None, ge=0, le=MAX_INT64, description="Task index")
    task_id: TaskIdText | None = None
    split: SplitText | None = None
    seed: int | None = Field(None, ge=0, le=MAX_INT64, strict=True)

    def task_index(self) -> int | None:
        for value in (self.game, self.data_idx, self.session_id, self.item_id, self.idx):
            if value is not None:
                return value
        return None


class AgentGymCloseRequest(_AgentGymBody):
    model_config = ConfigDict(extra="ignore")


class AgentGymCreated(BaseModel):
    id: str
    observation: str
    available_actions: list[str] = []
    done: bool = False
    reward: float = 0.0


class AgentGymStepIdStyle(BaseModel):
    observation: str
    reward: float
    done: bool
    available_actions: list[str] = []
    info: dict[str, Any] = {}


class AgentGymStepEnvIdxStyle(BaseModel):
    state: str
    reward: float
    done: bool
    info: dict[str, Any] = {}


class AgentGymResetIdStyle(BaseModel):
    id: str
    observation: str
    available_actions: list[str] = []
    task_id: str
    done: bool = False
    reward: float = 0.0


class AgentGymClickables(BaseModel):
    has_search_bar: bool
    clickables: list[str]


class AgentGymDetail(BaseModel):
    id: str
    observation: str
    available_actions: list[str]
    done: bool
    reward: float
    deleted: bool = False
    task_id: str | None
    split: str | None
    seed: int | None
    steps: int


class AgentGymClosed(BaseModel):
    closed: bool


def _pick_id(id_: IdValue | None, env_idx: IdValue | None) -> str:
    value = id_ if id_ is not None else env_idx
    if value is None:
        raise InvalidRequest("missing session id: send `id` or `env_idx`")
    return str(value)


def _json(value: Any) -> Response:
    from pydantic_core import to_json

    return Response(to_json(value, fallback=str), media_type="application/json")


def _actions(info: dict[str, Any]) -> list[str]:
    actions = info.get("available_actions")
    if isinstance(actions, dict):  # an env that already reports the env_idx style's shape
        actions = actions.get("clickables", [])
    return [str(a) for a in actions] if isinstance(actions, (list, tuple)) else []


def _item_index(value: IdValue | None) -> int | None:
    """An env_idx_item request's `id`: a task index (a non-negative integer) or absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidRequest("`id` is the item index here: send a non-negative integer")
    return value


def _named_index(body: BaseModel, name: str) -> int | None:
    """The task index a /reset body carries in the field `name` (a profile's
    `reset_index_field`): a non-negative integer, or absent."""
    value = getattr(body, name, None) if name in type(body).model_fields else (body.model_extra or {}).get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_INT64:
        raise InvalidRequest(f"`{name}` is the task index here: send a non-negative integer")
    return value


def build_compat_router(service: EnvService) -> APIRouter:
    router = APIRouter(tags=["agentgym"])
    profile = service.runtime.env_cls.agentgym_profile
    style = service.config.agentgym_style
    if style == "auto":
        style = profile.style
    item_style = style == "env_idx_item"
    extra = profile.extra_fields
    step_info = profile.step_info
    finished_error = profile.finished_error

    @functools.cache
    def catalog_of_agentgym() -> AgentGymAdapter[Env]:
        """The catalogue as an AgentGym session sees it (an env may serve AgentGym's own task
        list there), made on first use; the handlers run on the event loop, one at a time."""
        env = service.runtime.new_env()
        env.agentgym = True
        return profile.adapt(env)

    def task_by_index(index: int) -> str:
        return catalog_of_agentgym().task(index)

    def session_of(body: _AgentGymBody) -> str:
        return _pick_id(None, body.env_idx) if item_style else body.sid()

    def finished(lease: Lease) -> Response | None:
        """The 200 `{"error"}` answer an env's AgentGym server gives a finished episode, where
        it gives one (the profile's `finished_error`)."""
        if finished_error is not None and lease.env.agentgym and lease.env.done:
            return _json({"error": finished_error.format(id=lease.session_id)})
        return None

    def detail(lease: Lease) -> AgentGymDetail:
        env = lease.env
        return AgentGymDetail(
            id=lease.session_id,
            observation=lease.last_observation,
            available_actions=_actions(lease.last_info),
            done=env.done,
            reward=lease.total_reward,
            task_id=env.task_id,
            split=env.split,
            seed=env.seed,
            steps=env.steps,
        )

    @router.get("/", response_model=str, include_in_schema=True)
    async def hello() -> Response:
        """AgentGym's connectivity check."""
        return _json(profile.hello_text(service.env_name))

    @router.post("/create", response_model=AgentGymCreated | str, responses=error_responses(404, 422, 429))
    async def create(body: Annotated[AgentGymCreateRequest | None, Body()] = None) -> Response:
        """Lease a session (AgentGym /create). Its first episode starts at once, so
        /observation works before /reset."""
        body = body or AgentGymCreateRequest()
        task_id = body.task_id
        index = _item_index(body.id) if item_style else body.data_idx
        if task_id is None and index is not None:
            task_id = task_by_index(index)
        lease, resp = await service.create(task_id, body.split, body.seed, agentgym=True)
        if style in ("env_idx", "env_idx_item"):
            return _json(lease.session_id)
        if not extra:
            return _json({"id": lease.session_id})
        return _json(
            AgentGymCreated(
                id=lease.session_id, observation=resp.observation, available_actions=_actions(resp.info)
            ).model_dump()
        )

    @router.post(
        "/step",
        response_model=AgentGymStepIdStyle | AgentGymStepEnvIdxStyle,
        responses=error_responses(404, 409, 413, 422),
    )
    async def step(body: AgentGymStepRequest) -> Response:
        """One action (AgentGym /step)."""
        sid = session_of(body)
        after_done = False
        if finished_error is not None:
            refused = finished(await service.lease(sid))
            if refused is not None:
                return refused
        elif profile.steps_after_done:  # an AgentGym session's steps go on; a native one's end
            service.check_action(body.action)  # first, as service.step orders its checks
            after_done = (await service.lease(sid)).env.agentgym
        r = await service.step(sid, body.action, after_done=after_done)
        lease = await service.lease(sid)
        done = r.done or r.truncated
        info = r.info if step_info else None
        if style == "env_idx":
            return _json({"state": r.observation, "reward": r.reward, "done": done, "info": info})
        if item_style:
            return _json({"observation": r.observation, "reward": r.reward, "done": done, "info": info})
        reply: dict[str, Any] = {
            "observation": r.observation,
            "reward": r.reward,
            "done": done,
            "available_actions": _actions(r.info),
        }
        if extra:
            reply["info"] = r.info
        reply.update(profile.adapt(lease.env).step_fields())
        return _json(reply)

    @router.post(
        "/reset", response_model=AgentGymResetIdStyle | tuple[str, None] | str, responses=error_responses(404, 422)
    )
    async def reset(body: AgentGymResetRequest) -> Response:
        """Start the task with the given index (AgentGym /reset)."""
        check_extras(body)
        task_id = body.task_id
        index = _item_index(body.id) if item_style else body.task_index()
        seed = body.seed
        if profile.reset_index_field is not None and index is None:
            index = _named_index(body, profile.reset_index_field)
            if profile.reset_index_field == "seed":  # the field names the task, not our seed
                seed = None
        if task_id is None and index is not None:
            task_id = task_by_index(index)
        sid = session_of(body)
        r = await service.reset(sid, task_id, body.split, seed, agentgym=True)
        lease = await service.lease(sid)
        lease.agentgym_reset = kept_fields(body)
        if style == "env_idx":
            return _json([r.observation, None])
        if item_style:
            return _json(r.observation)
        reply: dict[str, Any] = {"id": sid, "observation": r.observation, "available_actions": _actions(r.info)}
        if extra:
            reply = AgentGymResetIdStyle(
                id=sid,
                observation=r.observation,
                available_actions=_actions(r.info),
                task_id=str(r.info.get("task_id", task_id or "")),
            ).model_dump()
        reply.update(profile.adapt(lease.env).reset_fields())
        return _json(reply)

    @router.get("/observation", response_model=str, responses=error_responses(404, 422))
    async def observation(
        id: Annotated[str | None, Query()] = None, env_idx: Annotated[str | None, Query()] = None
    ) -> Response:
        """The latest observation (AgentGym /observation)."""
        lease = await service.lease(_pick_id(None, env_idx) if item_style else _pick_id(id, env_idx))
        refused = finished(lease)
        if refused is not None:
            return refused
        text = profile.adapt(lease.env).observation() if lease.env.agentgym else None
        return _json(lease.last_observation if text is None else text)

    @router.get(
        "/available_actions", response_model=list[str] | AgentGymClickables, responses=error_responses(404, 422)
    )
    async def available_actions(
        id: Annotated[str | None, Query()] = None, env_idx: Annotated[str | None, Query()] = None
    ) -> Response:
        """The actions valid now, when the env has a finite set (AgentGym /available_actions)."""
        lease = await service.lease(_pick_id(id, env_idx))
        refused = finished(lease)
        if refused is not None:
            return refused
        actions = _actions(lease.last_info)
        if style == "env_idx":
            info = lease.last_info
            shown = info.get("available_actions")
            if isinstance(shown, dict):  # the env reports the shop's own get_available_actions()
                return _json(
                    {
                        "has_search_bar": bool(shown.get("has_search_bar")),
                        "clickables": [str(c) for c in shown.get("clickables", [])],
                    }
                )
            has_search = info.get("has_search_bar")
            if has_search is None:
                has_search = any(a.startswith("search") for a in actions)
            return _json(
                {"has_search_bar": bool(has_search), "clickables": [a for a in actions if not a.startswith("search")]}
            )
        return _json(actions)

    @router.get("/detail", response_model=AgentGymDetail, responses=error_responses(404, 422))
    async def get_detail(
        id: Annotated[str | None, Query()] = None, env_idx: Annotated[str | None, Query()] = None
    ) -> Response:
        """Everything known about the session (AgentGym /detail)."""
        lease = await service.lease(_pick_id(id, env_idx))
        refused = finished(lease)
        if refused is not None:
            return refused
        if not extra:  # the server's own record: the reset's fields, then the latest state
            if lease.agentgym_reset is None:
                return _json({"done": lease.env.done, "reward": lease.total_reward, "deleted": False})
            return _json(
                {
                    **lease.agentgym_reset,
                    "observation": lease.last_observation,
                    "available_actions": _actions(lease.last_info),
                    "done": lease.env.done,
                    "reward": lease.total_reward,
                    "deleted": False,
                }
            )
        return _json(detail(lease).model_dump())

    @router.get("/instruction_text", response_model=str, responses=error_responses(404, 409, 422))
    async def instruction_text(
        id: Annotated[str | None, Query()] = None, env_idx: Annotated[str | None, Query()] = None
    ) -> Response:
        """The task's instruction as the current page heads it, where the env's AgentGym server
        has this route (its profile's adapter answers it)."""
        lease = await service.lease(_pick_id(id, env_idx))
        text = profile.adapt(lease.env).instruction_text()
        if text is None:
            raise RouteNotServed(f"{service.env_name} has no /instruction_text")
        return _json(text)

    def add_read(route: str) -> None:
        async def read(
            id: Annotated[str | None, Query()] = None, env_idx: Annotated[str | None, Query()] = None
        ) -> Response:
            lease = await service.lease(_pick_id(id, env_idx))
            refused = finished(lease)
            if refused is not None:
                return refused
            return _json(profile.adapt(lease.env).read(route))

        read.__doc__ = f"What the env's AgentGym server answers at GET /{route} (its profile's `reads`)."
        router.add_api_route(
            f"/{route}", read, methods=["GET"], name=f"agentgym_{route}", responses=error_responses(404, 422)
        )

    for route in profile.reads:
        add_read(route)

    @router.post("/close", response_model=AgentGymClosed | bool, responses=error_responses(404, 422))
    async def close(body: AgentGymCloseRequest) -> Response:
        """Release the session (AgentGym /close) — which AgentGym's household-game server lacks."""
        if item_style:  # AgentGym's search server answers false for a session it does not hold
            try:
                await service.close(session_of(body))
            except SessionNotFound:
                return _json(False)
            return _json(True)
        await service.close(session_of(body))
        return _json({"closed": True})

    return router
