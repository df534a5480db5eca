"""Request-body size limit, enforced before anything parses the body.

A plain ASGI middleware (no BaseHTTPMiddleware: that one costs a task and a queue per request).
A declared Content-Length over the limit is refused at once; a chunked body is counted as it
streams and refused as soon as it passes the limit, so a huge body is never buffered whole.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import HTTPException

from coevo.server.errors import BodyTooLarge, error_response

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_body_bytes: int, on_reject: Callable[[], None] | None = None) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.on_reject = on_reject

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_body_bytes
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = limit + 1
                if declared > limit:
                    await self._reject(scope, receive, send)
                    return
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

    async def _reject(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.on_reject is not None:
            self.on_reject()
        response = error_response(
            413, BodyTooLarge.code, f"request body is larger than {self.max_body_bytes} bytes",
            headers={"Connection": "close"},
        )
        await response(scope, receive, send)
