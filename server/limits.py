"""Request-body checks, enforced before anything parses the body: size and media type.

A plain ASGI middleware (no BaseHTTPMiddleware: that one costs a task and a queue per request).
A declared Content-Length over the limit is refused at once; a chunked body is counted as it
streams and refused as soon as it passes the limit, so a huge body is never buffered whole.

Every body the server reads is JSON, so a request that carries a body under any other media type
answers 415, on every route: a cross-site HTML form (text/plain, urlencoded, multipart) can
never drive a session. An empty body needs no media type.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import HTTPException

from coevo.server.errors import BodyTooLarge, UnsupportedMediaType, error_response

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def is_json_media_type(value: bytes) -> bool:
    """application/json or application/<anything>+json, parameters (charset) ignored."""
    kind = value.split(b";", 1)[0].strip().lower()
    return kind == b"application/json" or (kind.startswith(b"application/") and kind.endswith(b"+json"))


class BodyLimitMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        max_body_bytes: int,
        on_reject: Callable[[], None] | None = None,
        on_media_type: Callable[[], None] | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.on_reject = on_reject
        self.on_media_type = on_media_type

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_body_bytes
        declared: int | None = None
        chunked = False
        media_type = b""
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = limit + 1
            elif name == b"content-type":
                media_type = value
            elif name == b"transfer-encoding":
                chunked = b"chunked" in value.lower()
        if declared is not None and declared > limit:
            await self._reject(scope, receive, send)
            return
        if (chunked or (declared or 0) > 0) and not is_json_media_type(media_type):
            await self._refuse_media_type(scope, receive, send, media_type)
            return
        if declared is not None:
            # The HTTP server delivers exactly the declared length: nothing left to count.
            await self.app(scope, receive, send)
            return

        seen = 0

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    # Raised inside the app's body read. FastAPI re-raises HTTPExceptions from
                    # there untouched (anything else it turns into a 400); errors.py answers 413.
                    raise HTTPException(413, f"request body is larger than {limit} bytes")
            return message

        await self.app(scope, limited_receive, send)

    async def _refuse_media_type(self, scope: Scope, receive: Receive, send: Send, media_type: bytes) -> None:
        if self.on_media_type is not None:
            self.on_media_type()
        shown = media_type.decode("latin-1")[:64] or "none"
        response = error_response(
            415,
            UnsupportedMediaType.code,
            f"request bodies must be application/json (got content-type {shown})",
        )
        await response(scope, receive, send)

    async def _reject(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.on_reject is not None:
            self.on_reject()
        response = error_response(
            413,
            BodyTooLarge.code,
            f"request body is larger than {self.max_body_bytes} bytes",
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)
