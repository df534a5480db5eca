"""The native REST routes. Thin: parse with `coevo.wire`, call the service, serialize.

Handlers return a ready `Response` built by pydantic-core's serializer, so FastAPI does not
validate our own output a second time on the hot path; `response_model=` still documents
every route in /docs.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from pydantic_core import from_json
from starlette.responses import Response

from coevo.server.episode_end import MAX_ERROR_CHARS
from coevo.server.errors import InvalidRequest, error_responses
from coevo.server.service import EnvService
from coevo.server.task_difficulty import DifficultyFilter
from coevo.wire import (
    MAX_INT64,
    MAX_TASKS_PAGE,
    BatchStepItem,
    BatchStepRequest,
    BatchStepResult,
    BatchStepResponse,
    ClosedResponse,
    CreateSessionRequest,
    ErrorDetail,
    ExpertActionResponse,
    HealthResponse,
    InfoResponse,
    ReportedStatus,
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


#: The wire model's own cap on items per batch (ServerConfig.max_batch_items may lower it).
BATCH_LIMIT: int = next(
    m.max_length for m in BatchStepRequest.model_fields["items"].metadata if hasattr(m, "max_length")
)


async def parse_step(request: Request) -> StepRequest:
    """The step body, parsed and validated in one pass by pydantic-core.

    FastAPI's generic body handling (content-type sniffing, json.loads, then validation) is a
    measurable share of a step's cost; errors still surface as the usual 422.
    """
    try:
        return StepRequest.model_validate_json(await request.body())
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from None


async def parse_batch(request: Request) -> list[tuple[str, str] | BatchStepResult]:
    """Batch items, each validated on its own: a malformed item becomes that item's 422 and
    never fails its neighbours. Only a body that is not `{"items": [...]}` fails whole."""
    raw = await request.body()
    try:
        body = BatchStepRequest.model_validate_json(raw)
        return [(item.session_id, item.action) for item in body.items]
    except ValidationError:
        pass  # find out which items are bad
    try:
        data = from_json(raw)
    except ValueError:
        raise RequestValidationError([{"type": "json_invalid", "loc": ("body",), "msg": "JSON decode error"}]) from None
    if not isinstance(data, dict) or set(data) != {"items"} or not isinstance(data["items"], list):
        raise InvalidRequest('the body must be {"items": [{"session_id", "action"}, ...]}')
    if len(data["items"]) > BATCH_LIMIT:
        raise InvalidRequest(f"at most {BATCH_LIMIT} items per batch")
    out: list[tuple[str, str] | BatchStepResult] = []
    for entry in data["items"]:
        try:
            item = BatchStepItem.model_validate(entry)
            out.append((item.session_id, item.action))
        except ValidationError as exc:
            sid = entry.get("session_id") if isinstance(entry, dict) else None
            out.append(
                BatchStepResult.model_construct(
                    session_id=sid if isinstance(sid, str) else "",
                    ok=False,
                    result=None,
                    status=422,
                    error=ErrorDetail(code="invalid_request", message=exc.errors()[0]["msg"]),
                )
            )
    return out


#: /docs still shows the bodies the hot routes read themselves (`parse_step`, `parse_batch`).
_BATCH_BODY_DOC = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "title": "BatchStepRequest",
                    "type": "object",
                    "required": ["items"],
                    "additionalProperties": False,
                    "properties": {
                        "items": {"type": "array", "maxItems": BATCH_LIMIT, "items": BatchStepItem.model_json_schema()}
                    },
                }
            }
        },
    }
}
_STEP_BODY_DOC = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": StepRequest.model_json_schema()}},
    }
}


_SESSION_ERRORS = error_responses(404, 409, 422, 500)


def build_router(service: EnvService) -> APIRouter:
    router = APIRouter()

    # The hot routes first: Starlette matches routes in order.
    @router.post(
        "/sessions/{session_id}/step",
        response_model=StepResponse,
        responses=error_responses(404, 409, 413, 422, 500),
        tags=["sessions"],
        openapi_extra=_STEP_BODY_DOC,
    )
    async def step_session(session_id: str, request: Request) -> Response:
        """Apply one action. 409 after the episode ended (reset to play again)."""
        body = await parse_step(request)
        return json_response(await service.step(session_id, body.action))

    @router.post(
        "/batch/step",
        response_model=BatchStepResponse,
        responses=error_responses(413, 422),
        tags=["sessions"],
        openapi_extra=_BATCH_BODY_DOC,
    )
    async def batch_step(request: Request) -> Response:
        """Step many sessions in one request: one result or error per item, in order.

        A bad item (unknown session, finished episode, oversized or malformed action) gets its
        own error object with the status it would have had alone; the others still run."""
        items = await parse_batch(request)
        if len(items) > service.config.max_batch_items:
            raise InvalidRequest(f"at most {service.config.max_batch_items} items per batch")
        results = await service.step_many(items)
        return json_response(BatchStepResponse.model_construct(results=results))

    @router.get("/health", response_model=HealthResponse, tags=["server"])
    async def health() -> Response:
        """Liveness, sessions in use and capacity."""
        return json_response(service.health())

    @router.get("/info", response_model=InfoResponse, tags=["server"])
    async def info() -> Response:
        """Env name and version, action format, max steps, splits."""
        return json_response(service.info())

    @router.get("/tasks", response_model=TaskListResponse, responses=error_responses(404, 422), tags=["server"])
    async def tasks(
        split: Annotated[str | None, Query(description="Split; the env's default if omitted")] = None,
        offset: Annotated[int, Query(ge=0, le=MAX_INT64)] = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_TASKS_PAGE)] = 100,
        p_min: Annotated[
            float | None, Query(ge=0, le=1, description="Lowest estimated success rate to list (difficulty)")
        ] = None,
        p_max: Annotated[
            float | None, Query(ge=0, le=1, description="Highest estimated success rate to list (difficulty)")
        ] = None,
        policy: Annotated[
            str | None, Query(max_length=256, description="Policy tag the rates are for; every tag pooled if omitted")
        ] = None,
        min_episodes: Annotated[
            int | None, Query(ge=1, le=MAX_INT64, description="Fewest judged episodes a listed task has")
        ] = None,
    ) -> Response:
        """One page of a split's task ids, with each task's catalogue metadata (at most
        MAX_TASKS_PAGE a page; pages are cached). With any of p_min, p_max, policy or
        min_episodes: only the tasks played that often whose estimated success rate for the
        policy lies in [p_min, p_max], each with its statistics (`stats`, Wilson interval);
        p_min > p_max is 422, an unknown policy tag an empty page."""
        if p_min is None and p_max is None and policy is None and min_episodes is None:
            return Response(await service.tasks(split, offset, limit), media_type="application/json")
        wanted = DifficultyFilter(
            p_min=0.0 if p_min is None else p_min, p_max=1.0 if p_max is None else p_max, policy=policy,
            min_episodes=min_episodes or 1,
        )  # fmt: skip
        return Response(await service.difficult_tasks(split, offset, limit, wanted), media_type="application/json")

    @router.post(
        "/sessions",
        response_model=SessionResponse,
        status_code=201,
        responses=error_responses(404, 422, 429, 500),
        tags=["sessions"],
    )
    async def create_session(body: Annotated[CreateSessionRequest | None, Body()] = None) -> Response:
        """Lease a session and start its first episode. With only a seed, the task is picked
        from the seed: the same body always starts the same episode."""
        body = body or CreateSessionRequest()
        _, resp = await service.create(body.task_id, body.split, body.seed, policy=body.policy, run=body.run)
        return json_response(resp, 201)

    @router.post(
        "/sessions/{session_id}/reset", response_model=SessionResponse, responses=_SESSION_ERRORS, tags=["sessions"]
    )
    async def reset_session(session_id: str, body: Annotated[ResetRequest | None, Body()] = None) -> Response:
        """Start a new episode in an existing session."""
        body = body or ResetRequest()
        return json_response(await service.reset(session_id, body.task_id, body.split, body.seed))

    @router.get(
        "/sessions/{session_id}", response_model=SessionState, responses=error_responses(404), tags=["sessions"]
    )
    async def get_session(session_id: str) -> Response:
        """Where a session stands: task, steps, reward so far, last observation."""
        return json_response(await service.state(session_id))

    @router.delete(
        "/sessions/{session_id}", response_model=ClosedResponse, responses=error_responses(404, 422), tags=["sessions"]
    )
    async def close_session(
        session_id: str,
        status: Annotated[
            ReportedStatus | None,
            Query(description="Why the client leaves an unfinished episode (recorded as its end status)"),
        ] = None,
        error: Annotated[str | None, Query(max_length=MAX_ERROR_CHARS, description="What went wrong")] = None,
    ) -> Response:
        """Release the session now (its episode stays in the store). An unfinished episode ends
        `abandoned`, or with the `status` the client reports (policy_error, transport_error)."""
        await service.close(session_id, status=status, error=error)
        return json_response(ClosedResponse(session_id=session_id))

    @router.post(
        "/sessions/{session_id}/fork",
        response_model=SessionResponse,
        status_code=201,
        responses=error_responses(404, 409, 429, 500),
        tags=["sessions"],
    )
    async def fork_session(session_id: str) -> Response:
        """A new session in the identical state (same task, seed and history)."""
        return json_response(await service.fork(session_id), 201)

    @router.get(
        "/sessions/{session_id}/expert",
        response_model=ExpertActionResponse,
        responses=_SESSION_ERRORS,
        tags=["sessions"],
    )
    async def expert_action(session_id: str) -> Response:
        """The env's privileged expert's next action from the current state (null if none)."""
        action = await service.expert(session_id)
        return json_response(ExpertActionResponse(session_id=session_id, action=action))

    @router.get("/metrics", tags=["server"], response_class=Response, responses={200: {"content": {"text/plain": {}}}})
    async def metrics() -> Response:
        """Prometheus metrics."""
        return Response(service.metrics.render(), media_type=service.metrics.content_type)

    return router
