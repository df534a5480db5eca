"""The native REST routes. Thin: parse with `coevo.wire`, call the service, serialize.

Handlers return a ready `Response` built by pydantic-core's serializer, so FastAPI does not
validate our own output a second time on the hot path; `response_model=` still documents
every route in /docs.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.responses import Response

from coevo.server.service import EnvService
from coevo.wire import (
    BatchStepRequest,
    BatchStepResponse,
    ClosedResponse,
    CreateSessionRequest,
    ErrorBody,
    ExpertActionResponse,
    HealthResponse,
    InfoResponse,
    ResetRequest,
    SessionResponse,
    SessionState,
    StepRequest,
    StepResponse,
    TaskListResponse,
)


def json_response(model: BaseModel, status_code: int = 200) -> Response:
    payload = type(model).__pydantic_serializer__.to_json(model, fallback=str, warnings=False)
    return Response(payload, status_code=status_code, media_type="application/json")


async def parse_step(request: Request) -> StepRequest:
    """The step body, parsed and validated in one pass by pydantic-core.

    FastAPI's generic body handling (content-type sniffing, json.loads, then validation) is a
    measurable share of a step's cost; errors still surface as the usual 422.
    """
    try:
        return StepRequest.model_validate_json(await request.body())
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from None


#: /docs still shows the step body, which the route reads itself (see `parse_step`).
_STEP_BODY_DOC = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": StepRequest.model_json_schema()}},
    }
}


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {s: {"model": ErrorBody} for s in statuses}


_SESSION_ERRORS = _errors(404, 409, 422, 500)


def build_router(service: EnvService) -> APIRouter:
    router = APIRouter()

    # The hot routes first: Starlette matches routes in order.
    @router.post("/sessions/{session_id}/step", response_model=StepResponse,
                 responses=_errors(404, 409, 413, 422, 500), tags=["sessions"],
                 openapi_extra=_STEP_BODY_DOC)
    async def step_session(session_id: str, request: Request) -> Response:
        """Apply one action. 409 after the episode ended (reset to play again)."""
        body = await parse_step(request)
        return json_response(await service.step(session_id, body.action))

    @router.post("/batch/step", response_model=BatchStepResponse, responses=_errors(413, 422),
                 tags=["sessions"])
    async def batch_step(body: BatchStepRequest) -> Response:
        """Step many sessions in one request: one result or error per item, in order."""
        if len(body.items) > service.config.max_batch_items:
            from coevo.server.errors import InvalidRequest

            raise InvalidRequest(f"at most {service.config.max_batch_items} items per batch")
        results = await service.step_many([(i.session_id, i.action) for i in body.items])
        return json_response(BatchStepResponse.model_construct(results=results))

    @router.get("/health", response_model=HealthResponse, tags=["server"])
    async def health() -> Response:
        """Liveness, sessions in use and capacity."""
        return json_response(service.health())

    @router.get("/info", response_model=InfoResponse, tags=["server"])
    async def info() -> Response:
        """Env name and version, action format, max steps, splits."""
        return json_response(service.info())

    @router.get("/tasks", response_model=TaskListResponse, responses=_errors(404, 422), tags=["server"])
    async def tasks(
        split: Annotated[str | None, Query(description="Split; the env's default if omitted")] = None,
        offset: Annotated[int, Query(ge=0)] = 0,
        limit: Annotated[int, Query(ge=1, le=10_000)] = 100,
    ) -> Response:
        """One page of a split's task ids, with each task's catalogue metadata."""
        return json_response(await service.tasks(split, offset, limit))

    @router.post(
        "/sessions", response_model=SessionResponse, status_code=201,
        responses=_errors(404, 422, 429, 500), tags=["sessions"],
    )
    async def create_session(body: Annotated[CreateSessionRequest | None, Body()] = None) -> Response:
        """Lease a session and start its first episode. With only a seed, the task is picked
        from the seed: the same body always starts the same episode."""
        body = body or CreateSessionRequest()
        _, resp = await service.create(body.task_id, body.split, body.seed)
        return json_response(resp, 201)

    @router.post("/sessions/{session_id}/reset", response_model=SessionResponse,
                 responses=_SESSION_ERRORS, tags=["sessions"])
    async def reset_session(session_id: str,
                            body: Annotated[ResetRequest | None, Body()] = None) -> Response:
        """Start a new episode in an existing session."""
        body = body or ResetRequest()
        return json_response(await service.reset(session_id, body.task_id, body.split, body.seed))

    @router.get("/sessions/{session_id}", response_model=SessionState, responses=_errors(404),
                tags=["sessions"])
    async def get_session(session_id: str) -> Response:
        """Where a session stands: task, steps, reward so far, last observation."""
        return json_response(await service.state(session_id))

    @router.delete("/sessions/{session_id}", response_model=ClosedResponse, responses=_errors(404),
                   tags=["sessions"])
    async def close_session(session_id: str) -> Response:
        """Release the session now (its episode stays in the store)."""
        await service.close(session_id)
        return json_response(ClosedResponse(session_id=session_id))

    @router.post("/sessions/{session_id}/fork", response_model=SessionResponse, status_code=201,
                 responses=_errors(404, 409, 429, 500), tags=["sessions"])
    async def fork_session(session_id: str) -> Response:
        """A new session in the identical state (same task, seed and history)."""
        return json_response(await service.fork(session_id), 201)

    @router.get("/sessions/{session_id}/expert", response_model=ExpertActionResponse,
                responses=_SESSION_ERRORS, tags=["sessions"])
    async def expert_action(session_id: str) -> Response:
        """The env's privileged expert's next action from the current state (null if none)."""
        action = await service.expert(session_id)
        return json_response(ExpertActionResponse(session_id=session_id, action=action))

    @router.get("/metrics", tags=["server"], response_class=Response,
                responses={200: {"content": {"text/plain": {}}}})
    async def metrics() -> Response:
        """Prometheus metrics."""
        return Response(service.metrics.render(), media_type=service.metrics.content_type)

    return router
