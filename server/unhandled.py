"""The 500 for an unexpected error, answered without dropping the connection.

Starlette answers an exception no handler took in its outermost middleware and then re-raises
it, so uvicorn closes the connection: every 500 cost the client its keep-alive connection
(and a pool of them a reconnect each). This middleware sits inside that one: it answers the
same JSON 500 (`errors.classify` logs the error) and returns normally, so the connection stays
open for the next request. An error after the response has started cannot be answered; it
is re-raised as before.
"""

from __future__ import annotations

from collections.abc import Callable

from coevo.server.errors import classify, error_response
from coevo.server.limits import ASGIApp, Message, Receive, Scope, Send


class UnhandledErrorMiddleware:
    def __init__(self, app: ASGIApp, on_error: Callable[[int, str], None] | None = None) -> None:
        self.app = app
        self.on_error = on_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            if started:
                raise
            status, code, message, headers = classify(exc)
            if self.on_error is not None:
                self.on_error(status, code)
            await error_response(status, code, message, headers)(scope, receive, send)
