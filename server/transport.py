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
- a cap on a request's head (the bytes from its request line to the blank line that ends it,
  `MAX_HEAD_BYTES` at most, exactly, in either parser and however the bytes arrive): past it
  the client gets 431 as JSON and the connection is closed, before the rest is parsed (a 64 MB
  header took 4.3 s to parse and four of them stalled /health for 7.9 s).
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import h11
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
        error = sys.exc_info()[1]
        detail = str(error or "")
        if getattr(self, "_head_too_large", False) or getattr(error, "error_status_hint", None) == 431:
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
    """httptools reports what it parsed but not where in the bytes, so the head's raw size is
    measured here: a head runs from its request line (after any blank lines, which llhttp
    skips) to the first CRLFCRLF after it, and it starts where the parse is known to have got
    in the read: the read's start, the end of the previous head, or that plus a Content-Length
    body. Only a head that follows a chunked body in the same read (pipelining) has no known
    start; it is measured as parsed (method, target, names and values with single separators),
    which leaves out only optional whitespace."""

    _in_message = False
    _in_head = False
    _head_too_large = False
    #: The read being parsed, and the offset in it the parse is known to have reached (None
    #: inside a chunked body: httptools does not report its framing).
    _data = b""
    _pos: int | None = 0
    _chunked = False
    #: Where the current head's bytes start in this read (None: not known), whether every part
    #: of it was measured, its bytes in earlier reads, the last 3 bytes of those (a CRLFCRLF may
    #: straddle two reads), and its parsed size.
    _head_start: int | None = None
    _head_known = True
    _head_before = 0
    _tail = b""
    _head_parsed = 0

    def _reading(self) -> bool:
        return self._in_message

    def data_received(self, data: bytes) -> None:
        self._data = data
        self._pos = None if self._in_message and not self._in_head and self._chunked else 0
        if self._in_head:
            self._head_start = 0  # the head goes on from the last read
        super().data_received(data)
        if not self._in_head or self.transport.is_closing() or getattr(self, "_discarding", False):
            return
        # The head goes on in the next read: this read's bytes from its start are all head.
        if self._head_start is not None:
            self._head_before += len(data) - self._head_start
        self._tail = (self._tail + data)[-3:]
        if self._head_before > MAX_HEAD_BYTES:
            self._answer_head_too_large()

    def on_message_begin(self) -> None:
        self._in_message = self._in_head = True
        start = self._pos
        if start is not None:
            while start < len(self._data) and self._data[start] in b"\r\n":
                start += 1
        self._head_start, self._head_known = start, start is not None
        self._head_before, self._head_parsed, self._tail = 0, 0, b""
        super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        self._head_parsed += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_parsed += len(name) + len(value) + 4  # ": " and CRLF
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        end = self._head_end()
        if self._head_known and end is not None and self._head_start is not None:
            size = self._head_before + end - self._head_start
        else:  # method SP target SP "HTTP/1.1" CRLF, the header lines, CRLF
            parsed = len(self.parser.get_method()) + 1 + self._head_parsed + len(" HTTP/1.1\r\n") + 2
            size = max(parsed, self._head_before + (end or 0))
        if size > MAX_HEAD_BYTES:
            self._head_too_large = True
            # Ends the parse: uvicorn answers through send_400_response, which answers 431.
            raise ValueError("request head too large")
        self._chunked = any(n == b"transfer-encoding" and b"chunked" in v.lower() for n, v in self.headers)
        self._pos = None if self._chunked or end is None else end
        super().on_headers_complete()

    def _head_end(self) -> int | None:
        """The offset in this read just past the current head's CRLFCRLF (None: not found)."""
        start = self._head_start
        if start is None:
            return None
        if start == 0 and self._tail:  # it may straddle the last read and this one
            found = (self._tail + self._data[:3]).find(b"\r\n\r\n")
            if found >= 0:
                return found + 4 - len(self._tail)
        found = self._data.find(b"\r\n\r\n", start)
        return None if found < 0 else found + 4

    def on_body(self, body: bytes) -> None:
        if self._pos is not None:
            self._pos += len(body)
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._in_message = False
        super().on_message_complete()


class _HeadCappedConnection(h11.Connection):
    """h11 bounds only a head still incomplete when a read ends (`max_incomplete_event_size`);
    a whole head that came in one read (up to 256 KiB) was parsed and served. Here each
    request's head is measured too, as the bytes its Request event took from the buffer."""

    def next_event(self) -> Any:
        before = len(self._receive_buffer)
        event = super().next_event()
        if type(event) is h11.Request and before - len(self._receive_buffer) > MAX_HEAD_BYTES:
            self._process_error(self.their_role)  # their state: ERROR, as after h11's own refusals
            raise h11.RemoteProtocolError("request head too large", error_status_hint=431)
        return event


class _GuardedH11(_Guarded, H11Protocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # An incomplete head past the cap is refused by h11 itself, a complete one by the
        # connection class; both with status hint 431 (send_400_response answers 431).
        self.conn = _HeadCappedConnection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)

    def _reading(self) -> bool:
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
