"""The HTTP connection layer `coevo serve` runs: uvicorn's protocols with three guards added.

uvicorn lets a client hold a connection forever by sending a request slowly (3000 connections
each with a partial body stayed open past 65 s), puts no bound on one client's connections,
and answers requests its parser refuses in plain text. The protocol classes here
(`guarded_protocol`, passed to uvicorn as `http=`) add:

- a request read deadline: from the first byte of a request (or from the connection's opening,
  for its first request) until the request, body included, is fully read. Past it the client
  gets 408 as JSON and the connection is closed. Between requests uvicorn's keep-alive timeout
  applies as before.
- a per-client connection limit: a client address with that many open connections has further
  ones answered 429 as JSON and closed.
- the JSON error body for requests the HTTP parser refuses: 413 body_too_large for a
  Content-Length too large to parse, 400 malformed_http otherwise.
- a cap on a request's head (request line and headers, `MAX_HEAD_BYTES` in total): past it the
  client gets 431 as JSON and the connection is closed, before the rest is parsed (a 64 MB
  header took 4.3 s to parse and four of them stalled /health for 7.9 s).
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from coevo.wire import ErrorBody, ErrorDetail

_DIGITS_LENGTH = re.compile(rb"(?im)^content-length:[ \t]*[0-9]+[ \t]*\r?$")
_REASONS = {
    400: b"Bad Request",
    408: b"Request Timeout",
    413: b"Content Too Large",
    429: b"Too Many Requests",
    431: b"Request Header Fields Too Large",
}
#: Most bytes of one request's head: its request line and all its headers together.
MAX_HEAD_BYTES = 64 * 1024
#: How long a connection refused for its head is still read (and dropped) before it closes.
_LINGER_S = 1.0


@dataclass
class ConnectionGuard:
    """Limits shared by every connection of one server (0 disables either)."""

    read_timeout_s: float
    max_client_connections: int
    open_by_host: Counter[str] = field(default_factory=Counter)

    def admit(self, host: str) -> bool:
        if self.max_client_connections and self.open_by_host[host] >= self.max_client_connections:
            return False
        self.open_by_host[host] += 1
        return True

    def release(self, host: str) -> None:
        self.open_by_host[host] -= 1
        if self.open_by_host[host] <= 0:
            del self.open_by_host[host]


def error_bytes(status: int, code: str, message: str, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """A complete HTTP/1.1 response with the JSON error body, closing the connection."""
    body = ErrorBody.__pydantic_serializer__.to_json(ErrorBody(error=ErrorDetail(code=code, message=message)))
    head = [b"HTTP/1.1 %d %s\r\n" % (status, _REASONS.get(status, b"Error"))]
    head += [name + b": " + value + b"\r\n" for name, value in default_headers]
    head += [b"content-type: application/json\r\n", b"content-length: %d\r\n" % len(body), b"connection: close\r\n\r\n"]
    return b"".join(head) + body


class _Guarded:
    """Mixed into a uvicorn protocol class ahead of it; `_reading` says whether a request is
    partly received."""

    guard: ConnectionGuard
    transport: asyncio.Transport
    client: tuple[str, int] | None
    server_state: Any
    cycle: Any
    loop: asyncio.AbstractEventLoop

    def _reading(self) -> bool:
        raise NotImplementedError

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._read_timer: asyncio.TimerHandle | None = None
        host = self.client[0] if self.client else ""
        if not self.guard.admit(host):
            self._guard_host: str | None = None
            self._answer(
                429,
                "too_many_connections",
                f"this client already has {self.guard.max_client_connections} open connections",
            )
            return
        self._guard_host = host
        self._arm()  # the first request must arrive, whole, within the deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if getattr(self, "_guard_host", None) is not None:
            self.guard.release(self._guard_host)  # type: ignore[arg-type]
            self._guard_host = None
        super().connection_lost(exc)  # type: ignore[misc]

    def data_received(self, data: bytes) -> None:
        if getattr(self, "_discarding", False):
            return
        self._last_data = data  # read by send_400_response, which the parser call may reach
        super().data_received(data)  # type: ignore[misc]
        if self.transport.is_closing():
            return
        if self._reading():
            self._arm()
        else:
            self._disarm()

    def send_400_response(self, msg: str) -> None:
        detail = str(sys.exc_info()[1] or "")
        if getattr(self, "_head_too_large", False) or "buffer too long" in detail.lower():
            self._answer_head_too_large()
            return
        declared = _DIGITS_LENGTH.search(getattr(self, "_last_data", b""))
        if "content-length" in detail.lower() and declared is not None:
            # Digits only, and still refused: too large for the parser's integer.
            self._answer(413, "body_too_large", "the declared Content-Length is too large")
        else:
            self._answer(400, "malformed_http", f"the request is not valid HTTP/1.1 ({detail or msg})"[:300])

    def _answer_head_too_large(self) -> None:
        """431, then a lingering close: what the client still sends is read and dropped (no
        parsing) for `_LINGER_S`, so the answer is not lost to a reset of unread data."""
        self._disarm()
        self._discarding = True
        self.transport.write(
            error_bytes(
                431,
                "headers_too_large",
                f"the request line and headers exceed {MAX_HEAD_BYTES} bytes",
                self.server_state.default_headers,
            )
        )
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(_LINGER_S, self.transport.close)

    # ------------------------------------------------------------------ internals
    def _arm(self) -> None:
        if self._read_timer is None and self.guard.read_timeout_s > 0:
            self._read_timer = self.loop.call_later(self.guard.read_timeout_s, self._read_timed_out)

    def _disarm(self) -> None:
        timer = getattr(self, "_read_timer", None)
        if timer is not None:
            timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and self.cycle.response_started:
            self.transport.close()
            return
        self._answer(
            408, "request_timeout", f"the request was not received in full within {self.guard.read_timeout_s:g} s"
        )

    def _answer(self, status: int, code: str, message: str) -> None:
        self.transport.write(error_bytes(status, code, message, self.server_state.default_headers))
        self.transport.close()


class _GuardedHttpTools(_Guarded, HttpToolsProtocol):
    _in_message = False
    #: Between a message's first byte and its last header; bytes of chunks that ended there, and
    #: bytes of the request line and headers parsed so far (a head split across chunks is caught
    #: by the first, a head that arrives in one chunk by the second).
    _in_head = False
    _head_raw = 0
    _head_parsed = 0
    _head_too_large = False

    def _reading(self) -> bool:
        return self._in_message

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._in_head and not self.transport.is_closing() and not getattr(self, "_discarding", False):
            self._head_raw += len(data)
            if self._head_raw > MAX_HEAD_BYTES:
                self._answer_head_too_large()

    def on_message_begin(self) -> None:
        self._in_message = True
        self._in_head, self._head_raw, self._head_parsed = True, 0, 0
        super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        self._count_head(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count_head(len(name) + len(value) + 4)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        super().on_headers_complete()

    def _count_head(self, size: int) -> None:
        self._head_parsed += size
        if self._head_parsed > MAX_HEAD_BYTES:
            self._head_too_large = True
            # Ends the parse: uvicorn answers through send_400_response, which answers 431.
            raise ValueError("request head too large")

    def on_message_complete(self) -> None:
        self._in_message = False
        super().on_message_complete()


class _GuardedH11(_Guarded, H11Protocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        import h11

        # h11 refuses a head past this as "Receive buffer too long" (send_400_response: 431).
        self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)

    def _reading(self) -> bool:
        import h11

        state = self.conn.their_state
        return state is h11.SEND_BODY or (state is h11.IDLE and bool(self.conn.trailing_data[0]))


def guarded_protocol(read_timeout_s: float, max_client_connections: int, http: str = "httptools") -> type:
    """A uvicorn protocol class (for `uvicorn.run(..., http=...)`) with the guards above; one
    guard, so one per-client count, per class: build one per server."""
    base = _GuardedHttpTools if http == "httptools" else _GuardedH11
    guard = ConnectionGuard(read_timeout_s, max_client_connections)
    return type(f"Coevo{base.__name__.lstrip('_')}", (base,), {"guard": guard})


def uvicorn_settings(read_timeout_s: float, max_client_connections: int) -> dict[str, Any]:
    """Keyword arguments for uvicorn.run/uvicorn.Config that install the guards."""
    try:
        import httptools  # noqa: F401

        http = "httptools"
    except ImportError:
        http = "h11"
    return {"http": guarded_protocol(read_timeout_s, max_client_connections, http)}
