"""POST /sessions/{id}/step answered without FastAPI's per-request machinery.

Every rollout pays the step route on every step, and under wrk (issue #42) FastAPI's own path
was most of a step's CPU: native-telemetry checks, four nested middleware and exception
wrappers, a linear match over every route of every router, dependency resolution into a fresh
exit stack, and a Response object per answer. The env step itself is microseconds.

`HotStep` is a plain ASGI app for exactly that route, reached through `HotStepMiddleware`, the
innermost middleware, so every middleware of the app still wraps it: the same body checks
(`BodyLimitMiddleware`: size, media type, the one JSON rule), the same validation of the body (pydantic-core on the raw bytes, so every message is the one the
FastAPI route gave), the same service call, and the same error mapping (`errors.classify`,
`errors.validation_answer`) with the same metrics. The answer is one pre-serialized JSON body
sent in two ASGI messages. Every other request, and this path under any other method, goes on
to FastAPI's router as before; the FastAPI route stays registered, so /docs still describes it.
`tests/server/test_hot_route_errors.py` pins every error answer word for word.
"""

from __future__ import annotations

from pydantic import ValidationError

from coevo.server.errors import classify, validation_answer
from coevo.server.json_body import DECODED_BODY
from coevo.server.limits import ASGIApp, Message, Receive, Scope, Send
from coevo.server.service import EnvService
from coevo.wire import ErrorBody, ErrorDetail, StepRequest, StepResponse

_JSON_HEADERS = (b"content-type", b"application/json")
_PREFIX, _SUFFIX = "/sessions/", "/step"
_serialize_step = StepResponse.__pydantic_serializer__.to_json
_serialize_error = ErrorBody.__pydantic_serializer__.to_json


def step_session_id(scope: Scope) -> str | None:
    """The session id when `scope` is POST /sessions/{id}/step (id: one non-empty path
    segment, as Starlette's `{session_id}` matches it), else None."""
    if scope["type"] != "http" or scope["method"] != "POST" or scope.get("root_path"):
        return None
    path: str = scope["path"]
    if not (path.startswith(_PREFIX) and path.endswith(_SUFFIX)):
        return None
    session_id = path[len(_PREFIX) : -len(_SUFFIX)]
    return session_id if session_id and "/" not in session_id else None


async def _send_json(send: Send, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    raw_headers = [_JSON_HEADERS, (b"content-length", str(len(body)).encode())]
    if headers:
        raw_headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})


class HotStep:
    """The step route as a bare ASGI app, behind the body checks (see the module doc)."""

    def __init__(self, service: EnvService) -> None:
        self.service = service
        self.metrics = service.metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        session_id = scope["path"][len(_PREFIX) : -len(_SUFFIX)]
        raw = await self._body(scope, receive)
        if raw is None:  # the client left mid-body: nobody reads an answer
            self.metrics.error(499, "client_disconnected")
            await send({"type": "http.response.start", "status": 499, "headers": [(b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        try:
            action = StepRequest.model_validate_json(raw).action
        except ValidationError as exc:
            await self._error(send, *validation_answer(exc.errors(include_url=False)))
            return
        try:
            response = await self.service.step(session_id, action)
        except Exception as exc:  # every error leaves as the JSON error body (errors.py)
            await self._error(send, *classify(exc))
            return
        await _send_json(send, 200, _serialize_step(response, fallback=str, warnings=False))

    @staticmethod
    async def _body(scope: Scope, receive: Receive) -> bytes | None:
        """The request body (the body checks have read and replay it), None on a disconnect."""
        state = scope.get("state") or {}
        if DECODED_BODY not in state:  # no body at all: validation calls it invalid JSON
            first = await receive()
            if first["type"] == "http.disconnect":
                return None
            return bytes(first.get("body", b""))
        chunks: list[bytes] = []
        while True:
            message: Message = await receive()
            if message["type"] != "http.request":
                return None
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _error(
        self, send: Send, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        self.metrics.error(status, code)
        body = _serialize_error(ErrorBody(error=ErrorDetail(code=code, message=message)))
        await _send_json(send, status, body, headers)


class HotStepSwitch:
    """Whether the fast path answers (`app.state.hot_step`); off, the FastAPI route does."""

    on: bool = True


class HotStepMiddleware:
    """The innermost middleware: POST /sessions/{id}/step goes to `HotStep`, all else on to
    FastAPI's exception handling and router. Every middleware added to the app (the body
    checks, the unhandled-error answer, any added later) still wraps the fast path."""

    def __init__(self, app: ASGIApp, service: EnvService, switch: HotStepSwitch) -> None:
        self.app = app
        self.hot = HotStep(service)
        self.switch = switch

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.switch.on and step_session_id(scope) is not None:
            await self.hot(scope, receive, send)
            return
        await self.app(scope, receive, send)
