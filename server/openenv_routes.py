"""OpenEnv's wire protocol (openenv-core 0.3.0), so an unmodified OpenEnv client runs episodes here.

OpenEnv's clients (`GenericEnvClient`, `EnvClient` subclasses) speak over a WebSocket at
`/ws`: `{"type": "reset", "data": {...}}`, `{"type": "step", "data": <action>}`,
`{"type": "state"}`, `{"type": "close"}`; the server answers `{"type": "observation", "data":
{"observation", "reward", "done"}}`, `{"type": "state", "data": {...}}` or `{"type": "error",
"data": {"message", "code"}}`. One connection is one coevo leased session (created by its first
reset, released when the connection ends), so limits, TTL, store and recovery are the REST
ones. The action is `{"action": "<text>"}`; the observation is `{"text", "info",
"session_id", "truncated"}`.

OpenEnv's HTTP routes are `POST /reset`, `POST /step`, `GET /state`, `GET /schema`, `GET
/metadata`. /reset and /step share AgentGym's paths: one handler per path tells them apart by
body (AgentGym's /reset names a session in `id` or `env_idx`, AgentGym's /step sends the action
as a string; OpenEnv's /reset names none and its /step's action is an object) and hands
AgentGym bodies to the AgentGym route. OpenEnv's own HTTP routes are stateless (a fresh env
per request); here /reset leases a session (its id is in the observation) and /step acts on
the session named by `session_id`, a field OpenEnv's step body allows as an extra. `/health`
stays the native route (OpenEnv's waits only for a 200).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.responses import Response

from coevo import __version__
from coevo.server.compat import AgentGymResetRequest, AgentGymStepRequest
from coevo.server.errors import ApiError, InvalidRequest, SessionNotFound, classify, error_responses
from coevo.server.agentgym_extras import check_field_count
from coevo.server.json_body import decode_json, request_json
from coevo.server.origins import origin_allowed
from coevo.server.service import EnvService
from coevo.wire import MAX_INT64, SessionResponse, SplitText, StepResponse, TaskIdText

log = logging.getLogger(__name__)


class OpenEnvResetData(BaseModel):
    """OpenEnv's reset parameters plus coevo's task choice; unknown extras are ignored."""

    model_config = ConfigDict(extra="ignore")

    # strict, as the native routes: JSON true, "7" and 7.0 are not seeds.
    seed: int | None = Field(None, ge=0, le=MAX_INT64, strict=True)
    episode_id: str | None = Field(None, max_length=255, description="Accepted, not used: coevo names episodes")
    task_id: TaskIdText | None = None
    split: SplitText | None = None


class OpenEnvAction(BaseModel):
    """The action of every coevo env: one text (`metadata` as OpenEnv's Action base has it)."""

    model_config = ConfigDict(extra="forbid")

    action: str
    metadata: dict[str, Any] = Field(default_factory=dict)


class OpenEnvStepBody(BaseModel):
    model_config = ConfigDict(extra="ignore")

    action: OpenEnvAction | dict[str, Any]
    session_id: str | None = Field(None, description="coevo: the session /reset returned")
    timeout_s: float | None = Field(None, gt=0, le=3600, description="Accepted, not used")
    request_id: str | None = Field(None, max_length=255)


class OpenEnvObservation(BaseModel):
    text: str = Field(description="The env's observation")
    info: dict[str, Any] = Field(default_factory=dict)
    session_id: str
    truncated: bool = False


class OpenEnvResult(BaseModel):
    observation: OpenEnvObservation
    reward: float | None = None
    done: bool = False


def _reset_result(resp: SessionResponse) -> dict[str, Any]:
    obs = OpenEnvObservation(text=resp.observation, info=resp.info, session_id=resp.session_id)
    return OpenEnvResult(observation=obs).model_dump(mode="json")


def _step_result(resp: StepResponse) -> dict[str, Any]:
    obs = OpenEnvObservation(
        text=resp.observation, info=resp.info, session_id=resp.session_id, truncated=resp.truncated
    )
    return OpenEnvResult(observation=obs, reward=resp.reward, done=resp.done or resp.truncated).model_dump(mode="json")


def _action_text(action: OpenEnvAction | dict[str, Any]) -> str:
    if isinstance(action, OpenEnvAction):
        return action.action
    return OpenEnvAction.model_validate(action).action


def _json(value: Any, status: int = 200) -> Response:
    return Response(json.dumps(value, ensure_ascii=False), status_code=status, media_type="application/json")


def _endpoint(router: APIRouter, path: str) -> Callable[..., Awaitable[Response]]:
    for route in router.routes:
        if isinstance(route, APIRoute) and route.path == path and "POST" in (route.methods or ()):
            return route.endpoint
    raise LookupError(f"no POST {path} in the AgentGym routes")


def build_openenv_router(service: EnvService, agentgym: APIRouter) -> APIRouter:
    """OpenEnv's routes; `agentgym` is the AgentGym router whose /reset and /step share paths."""
    router = APIRouter(tags=["openenv"])
    agentgym_reset, agentgym_step = _endpoint(agentgym, "/reset"), _endpoint(agentgym, "/step")
    cls = service.runtime.env_cls

    async def state(session_id: str | None) -> dict[str, Any]:
        if session_id is None:
            return {"episode_id": None, "step_count": 0}
        lease = await service.lease(session_id)
        s = await service.state(session_id)
        return {
            "episode_id": lease.episode_id,
            "step_count": s.steps,
            "session_id": s.session_id,
            "task_id": s.task_id,
            "split": s.split,
            "seed": s.seed,
            "done": s.done,
            "total_reward": s.total_reward,
        }

    async def body_of(request: Request) -> Any:
        data = await request_json(request)
        check_field_count(data)  # before validation: each field costs, and AgentGym's keep extras
        return data

    def parsed(model: type[BaseModel], data: Any) -> Any:
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise RequestValidationError(exc.errors(include_url=False)) from None

    @router.post(
        "/reset",
        responses=error_responses(404, 422, 429),
        summary="OpenEnv reset, or AgentGym reset when the body names a session (id / env_idx)",
    )
    async def openenv_or_agentgym_reset(request: Request) -> Response:
        data = await body_of(request)
        if isinstance(data, dict) and ("id" in data or "env_idx" in data):
            return await agentgym_reset(parsed(AgentGymResetRequest, data))
        body: OpenEnvResetData = parsed(OpenEnvResetData, data)
        _, resp = await service.create(body.task_id, body.split, body.seed)
        return _json(_reset_result(resp))

    @router.post(
        "/step",
        responses=error_responses(404, 409, 413, 422),
        summary="OpenEnv step (action object), or AgentGym step (action string)",
    )
    async def openenv_or_agentgym_step(request: Request) -> Response:
        data = await body_of(request)
        if isinstance(data, dict) and isinstance(data.get("action"), str):
            return await agentgym_step(parsed(AgentGymStepRequest, data))
        body: OpenEnvStepBody = parsed(OpenEnvStepBody, data)
        if body.session_id is None:
            raise InvalidRequest(
                "OpenEnv's HTTP /step needs the `session_id` that /reset returned (or use the /ws session route)"
            )
        try:
            text = _action_text(body.action)
        except ValidationError as exc:
            raise RequestValidationError(exc.errors(include_url=False)) from None
        return _json(_step_result(await service.step(body.session_id, text)))

    @router.get(
        "/state", summary="OpenEnv state of a session (episode_id, step_count, ...)", responses=error_responses(404)
    )
    async def get_state(session_id: Annotated[str | None, Query()] = None) -> Response:
        return _json(await state(session_id))

    @router.get("/schema", summary="OpenEnv JSON schemas of action, observation and state")
    async def schema() -> Response:
        action = OpenEnvAction.model_json_schema()
        action["properties"]["action"]["description"] = cls.action_format
        return _json(
            {
                "action": action,
                "observation": OpenEnvObservation.model_json_schema(),
                "state": {
                    "type": "object",
                    "properties": {"episode_id": {"type": ["string", "null"]}, "step_count": {"type": "integer"}},
                },
            }
        )

    @router.get("/metadata", summary="OpenEnv environment metadata")
    async def metadata() -> Response:
        return _json(
            {
                "name": service.env_name,
                "version": str(cls.version),
                "description": f"coevo {service.env_name} env server {__version__}; action: {cls.action_format}",
                "readme_content": None,
                "author": None,
                "documentation_url": None,
            }
        )

    @router.websocket("/ws")
    async def session_socket(websocket: WebSocket) -> None:
        if not origin_allowed(websocket.headers.get("origin"), service.config.host):
            service.metrics.error(403, "forbidden_origin")
            await websocket.close(code=1008)  # before accept: the handshake gets 403
            return
        await websocket.accept()
        session_id: str | None = None

        async def send(kind: str, data: dict[str, Any]) -> None:
            await websocket.send_text(json.dumps({"type": kind, "data": data}, ensure_ascii=False))

        try:
            while True:
                raw = await websocket.receive_text()
                if len(raw) > service.config.max_body_bytes:
                    await send(
                        "error",
                        {
                            "message": f"message is larger than {service.config.max_body_bytes} bytes",
                            "code": "body_too_large",
                            "status": 413,
                        },
                    )
                    continue
                try:
                    message = decode_json(raw)
                except ApiError as exc:  # the HTTP fronts' rule and error codes
                    service.metrics.error(exc.status, exc.code)
                    await send("error", {"message": exc.message, "code": exc.code, "status": exc.status})
                    continue
                kind = message.get("type") if isinstance(message, dict) else None
                try:
                    if kind == "reset":
                        params = OpenEnvResetData.model_validate(message.get("data") or {})
                        if session_id is None:
                            lease, resp = await service.create(params.task_id, params.split, params.seed)
                            session_id = lease.session_id
                        else:
                            resp = await service.reset(session_id, params.task_id, params.split, params.seed)
                        await send("observation", _reset_result(resp))
                    elif kind == "step":
                        text = _action_text(message.get("data") or {})
                        if session_id is None:
                            raise InvalidRequest("reset before the first step")
                        await send("observation", _step_result(await service.step(session_id, text)))
                    elif kind == "state":
                        await send("state", await state(session_id))
                    elif kind == "close":
                        break
                    else:
                        await send(
                            "error", {"message": f"Unknown message type: {kind}", "code": "UNKNOWN_TYPE", "status": 422}
                        )
                except ValidationError as exc:
                    await send(
                        "error",
                        {
                            "message": "Invalid message",
                            "code": "VALIDATION_ERROR",
                            "status": 422,
                            "errors": json.loads(exc.json(include_url=False)),
                        },
                    )
                except Exception as exc:
                    status, code, text_, _ = classify(exc)
                    service.metrics.error(status, code)
                    await send("error", {"message": text_, "code": code, "status": status})
        except WebSocketDisconnect:
            pass
        finally:
            if session_id is not None:
                with contextlib.suppress(SessionNotFound):
                    await service.close(session_id)
            with contextlib.suppress(RuntimeError):
                await websocket.close()

    return router
