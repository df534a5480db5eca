"""Every error leaves the server as JSON `{"error": {"code", "message"}}` with a fitting status.

Handlers are installed for our own `ApiError`s, env errors (`EnvError`), FastAPI's validation
errors (re-shaped from its default `{"detail": [...]}`), Starlette's HTTP errors (404 route,
405 method) and anything unexpected — which is logged and answered with a bare 500, never a
traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.responses import Response

from coevo.envs.base import (
    EnvError,
    EpisodeFinished,
    EpisodeNotStarted,
    InvalidPayload,
    UnknownCommand,
    UnknownSplit,
    UnknownTask,
)
from coevo.wire import ErrorBody, ErrorDetail

if TYPE_CHECKING:
    from coevo.server.metrics import ServerMetrics

log = logging.getLogger(__name__)


class ApiError(Exception):
    status: int = 400
    code: str = "bad_request"

    def __init__(self, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.headers = headers


class SessionNotFound(ApiError):
    status, code = 404, "session_not_found"


class RouteNotServed(ApiError):
    """A compatibility route the env's original server does not have."""

    status, code = 404, "not_found"


class CapacityExceeded(ApiError):
    status, code = 429, "capacity_exceeded"


class ActionTooLarge(ApiError):
    status, code = 413, "action_too_large"


class BodyTooLarge(ApiError):
    status, code = 413, "body_too_large"


class UnsupportedMediaType(ApiError):
    status, code = 415, "unsupported_media_type"


class InvalidRequest(ApiError):
    status, code = 422, "invalid_request"


class MalformedJson(ApiError):
    status, code = 422, "malformed_json"


class InvalidText(ApiError):
    """A string no store can hold: a lone UTF-16 surrogate, bad UTF-8, or U+0000."""

    status, code = 422, "invalid_text"


class JsonTooDeep(ApiError):
    status, code = 422, "json_too_deep"


class JsonTooManyKeys(ApiError):
    status, code = 422, "json_too_many_keys"


class SessionFailed(ApiError):
    """The session can no longer be served as recorded (a refused record, a gap in its
    history): it is closed, and every later request on it says why."""

    status, code = 410, "session_failed"


class OwnedElsewhere(ApiError):
    """Another replica on the same store serves this session (its address is in the message
    and the `X-Coevo-Owner` header); send the request there."""

    status, code = 409, "session_owned_elsewhere"


class OwnershipUnconfirmed(ApiError):
    """This server could not renew its sessions' ownership in time: another may take them over."""

    status, code = 503, "ownership_unconfirmed"


class StoreRefused(ApiError):
    """The store refused a record of this request: nothing was acknowledged, and the session
    it belonged to is closed as failed (never left ahead of its stored history)."""

    status, code = 500, "store_refused"


class Forbidden(ApiError):
    status, code = 403, "forbidden"


class NotStored(ApiError):
    """The request's effect is applied but could not be committed to the store yet."""

    status, code = 503, "store_unavailable"


#: Env errors -> HTTP status. Unknown subclasses of EnvError are the client's fault (400).
_ENV_STATUS: dict[type[EnvError], int] = {
    UnknownTask: 404,
    UnknownSplit: 404,
    UnknownCommand: 404,
    InvalidPayload: 422,
    EpisodeNotStarted: 409,
    EpisodeFinished: 409,
}


def classify(exc: BaseException) -> tuple[int, str, str, dict[str, str] | None]:
    """(status, code, message, headers) for any exception; the single place errors are mapped."""
    if isinstance(exc, ApiError):
        return exc.status, exc.code, exc.message, exc.headers
    if isinstance(exc, EnvError):
        status = next((s for t, s in _ENV_STATUS.items() if isinstance(exc, t)), 400)
        return status, exc.code, str(exc), None
    log.error("unhandled error", exc_info=exc)
    return 500, "internal_error", "internal server error", None


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
    body = ErrorBody(error=ErrorDetail(code=code, message=message))
    return Response(
        ErrorBody.__pydantic_serializer__.to_json(body),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` entries: these statuses answer with an ErrorBody."""
    return {s: {"model": ErrorBody} for s in statuses}


def _describe_validation(errors: Sequence[Any]) -> str:
    parts = []
    for err in errors[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "malformed request"


def validation_answer(errors: Sequence[Any]) -> tuple[int, str, str]:
    """(status, code, message) for a body that failed validation (pydantic's error list):
    the one mapping of the validation handler and of the routes that validate on their own."""
    if any(e.get("type") == "json_invalid" for e in errors):
        return 422, "malformed_json", "request body is not valid JSON"
    return 422, "invalid_request", _describe_validation(errors)


def install_error_handlers(app: FastAPI, metrics: ServerMetrics) -> None:
    def respond(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> Response:
        metrics.error(status, code)
        return error_response(status, code, message, headers)

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> Response:
        return respond(exc.status, exc.code, exc.message, exc.headers)

    @app.exception_handler(EnvError)
    async def _env_error(_request: Request, exc: EnvError) -> Response:
        return respond(*classify(exc))

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, exc: RequestValidationError) -> Response:
        return respond(*validation_answer(exc.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 400:
            # FastAPI's only 400: a JSON body it could not decode that json.loads did not call a
            # JSONDecodeError (e.g. invalid UTF-8 inside a string). Same contract as /step: 422.
            return respond(422, "malformed_json", "request body is not valid JSON")
        code = {404: "not_found", 405: "method_not_allowed", 408: "request_timeout", 413: BodyTooLarge.code}.get(
            exc.status_code, "http_error"
        )
        return respond(exc.status_code, code, str(exc.detail), getattr(exc, "headers", None))

    @app.exception_handler(ClientDisconnect)
    async def _gone(_request: Request, _exc: ClientDisconnect) -> Response:
        # The client left mid-body (or the read timeout dropped it): nobody reads this answer.
        metrics.error(499, "client_disconnected")
        return Response(status_code=499)

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception) -> Response:
        return respond(*classify(exc))
