"""Request-body checks, enforced before anything parses the body: size, media type, JSON rule.

A plain ASGI middleware (no BaseHTTPMiddleware: that one costs a task and a queue per request).
A declared Content-Length over the limit is refused at once; a chunked body is counted as it
streams and refused as soon as it passes the limit, so a huge body is never buffered whole.
A body within the limit is read, decoded once by `json_body.decode_json` (the one JSON
decoder and text rule of every front: 422 for a lone surrogate, NUL, or nesting past the cap)
and handed to the app unchanged.

Every body the server reads is JSON, so a request that carries a body under any other media type
answers 415, on every route: a cross-site HTML form (text/plain, urlencoded, multipart) can
never drive a session. An empty body needs no media type.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from coevo.server.errors import ApiError, BodyTooLarge, UnsupportedMediaType, error_response
from coevo.server.json_body import DECODED_BODY, decode_json

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
        on_invalid: Callable[[int, str], None] | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.on_reject = on_reject
        self.on_media_type = on_media_type
        self.on_invalid = on_invalid

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_body_bytes
        declared: int | None = None
        chunked = False
        media_type = b""
        lengths = 0
        for name, value in scope["headers"]:
            if name == b"content-length":
                lengths += 1
                declared = int(value) if value.strip().isdigit() else -1
            elif name == b"content-type":
                media_type = value
            elif name == b"transfer-encoding":
                chunked = b"chunked" in value.lower()
        if lengths > 1 or declared == -1:
            # RFC 9112 6.3: an invalid or repeated Content-Length is an unrecoverable framing error.
            if self.on_invalid is not None:
                self.on_invalid(400, "malformed_http")
            problem = "more than one Content-Length" if lengths > 1 else "a Content-Length that is not a number"
            response = error_response(
                400, "malformed_http", f"the request has {problem}", headers={"Connection": "close"}
            )
            await response(scope, receive, send)
            return
        if declared is not None and declared > limit:
            await self._reject(scope, receive, send)
            return
        if (chunked or (declared or 0) > 0) and not is_json_media_type(media_type):
            await self._refuse_media_type(scope, receive, send, media_type)
            return
        if not chunked and not declared:
            await self.app(scope, receive, send)
            return
        # Read the whole body (at most `limit` bytes), decode it once with the one JSON rule
        # (json_body.py), and hand the app the same messages: no route can accept text the
        # store cannot hold, or JSON nested past the cap, whichever parser it uses.
        messages: list[Message] = []
        body = bytearray()
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break  # the client left mid-body: the app learns it as before
            body += message.get("body", b"")
            if len(body) > limit:
                await self._reject(scope, receive, send)
                return
            if not message.get("more_body", False):
                try:
                    value = decode_json(bytes(body))
                except ApiError as exc:
                    if self.on_invalid is not None:
                        self.on_invalid(exc.status, exc.code)
                    await error_response(exc.status, exc.code, exc.message)(scope, receive, send)
                    return
                messages = [{"type": "http.request", "body": bytes(body), "more_body": False}]
                # Routes that read the JSON value themselves take it from here (decoded once).
                scope.setdefault("state", {})[DECODED_BODY] = value
                break
        replay = iter(messages)

        async def buffered_receive() -> Message:
            for message in replay:
                return message
            return await receive()

        await self.app(scope, buffered_receive, send)

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
