"""A minimal HTTP/1.1 keep-alive client for load generation (imported as `loadgen` by bench/load.py).

httpx costs the load generator ~1 ms of CPU per request (its pool scan, its models, its
timeouts): on a 2-core machine that shares the cores with the server, run 1 of bench/load.py
measured the client, not the server. This client does only what the benchmark needs, on
asyncio streams: one request line, Host, Content-Type and Content-Length headers and a body
written in one `write`; a status line, headers and a Content-Length (or chunked) body read back.

Keep-alive, and exactly what counts as a failure:

* A connection is reused only if the server cannot have closed it yet: it has not seen EOF
  (the server's FIN arrived before we wrote), it did not say `Connection: close`, and it has
  been idle less than `idle_reuse_s` (default 2 s, well inside uvicorn's 5 s keep-alive
  timeout, whose clock starts when the server wrote the last response — before we read it).
  Otherwise it is closed and a new one opened *before* any byte of the request is written.
  No request is ever retried: reopening happens only before sending.
* Every request that was written and did not get a complete response is a failure, named:
  `ConnectError` (the connection could not be opened), `ClosedBeforeResponse` (EOF or reset
  after the request was written, before any response byte), `ClosedMidResponse`,
  `Timeout` (no complete response within `timeout_s` of the request being issued, waiting
  for a free connection included), or the status code when it is not the expected one.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import deque
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """asyncio.run on uvloop when it is installed (uvicorn uses it too), else on asyncio's loop."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    return uvloop.run(coro)


def loop_name() -> str:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


class RequestFailed(Exception):
    """A request got no complete response; `kind` names why (see the module docstring)."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind


@dataclass
class Response:
    status: int
    body: bytes
    #: Seconds from writing the request to reading the whole response (no wait for a connection).
    wire_s: float = 0.0


@dataclass
class ConnectionStats:
    """What the pool did, so a run shows its keep-alive behaviour."""

    opened: int = 0
    reopened_idle: int = 0
    reopened_eof: int = 0
    reopened_close: int = 0
    requests: int = 0
    connect_s_total: float = 0.0
    connect_s_max: float = 0.0


class Connection:
    """One keep-alive connection, opened lazily; used by one request at a time."""

    def __init__(self, host: str, port: int, stats: ConnectionStats, idle_reuse_s: float) -> None:
        self.host, self.port = host, port
        self.stats = stats
        self.idle_reuse_s = idle_reuse_s
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.idle_since = 0.0
        self.must_close = False

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def _ready(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """An open connection the server cannot have closed yet (reopened if it might have)."""
        if self.reader is not None and self.writer is not None:
            if self.must_close:
                self.stats.reopened_close += 1
            elif self.reader.at_eof() or self.writer.is_closing():
                self.stats.reopened_eof += 1
            elif time.monotonic() - self.idle_since >= self.idle_reuse_s:
                self.stats.reopened_idle += 1
            else:
                return self.reader, self.writer
            self.close()
        t = time.perf_counter()
        try:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        except OSError as exc:
            raise RequestFailed("ConnectError", str(exc)) from None
        took = time.perf_counter() - t
        self.stats.connect_s_total += took
        self.stats.connect_s_max = max(self.stats.connect_s_max, took)
        self.must_close = False
        self.stats.opened += 1
        return self.reader, self.writer

    async def request(self, head: bytes, body: bytes) -> Response:
        reader, writer = await self._ready()
        self.stats.requests += 1
        try:
            writer.write(head + body)
            try:
                line = await reader.readuntil(b"\r\n")
            except asyncio.IncompleteReadError as exc:
                kind = "ClosedBeforeResponse" if not exc.partial else "ClosedMidResponse"
                raise RequestFailed(kind) from None
            except ConnectionError as exc:
                raise RequestFailed("ClosedBeforeResponse", type(exc).__name__) from None
            status = int(line.split(b" ", 2)[1])
            length = -1
            chunked = False
            while True:
                header = await reader.readuntil(b"\r\n")
                if header == b"\r\n":
                    break
                name, _, value = header.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value)
                elif name == b"transfer-encoding":
                    chunked = b"chunked" in value.lower()
                elif name == b"connection" and b"close" in value.lower():
                    self.must_close = True
            if chunked:
                parts = []
                while True:
                    size = int((await reader.readuntil(b"\r\n")).split(b";", 1)[0], 16)
                    parts.append(await reader.readexactly(size + 2))
                    if size == 0:
                        break
                data = b"".join(p[:-2] for p in parts)
            elif length >= 0:
                data = await reader.readexactly(length)
            else:  # no framing: the body runs to EOF
                data = await reader.read()
                self.must_close = True
        except RequestFailed:
            self.close()
            raise
        except (asyncio.IncompleteReadError, ConnectionError, ValueError, IndexError) as exc:
            self.close()
            raise RequestFailed("ClosedMidResponse", type(exc).__name__) from None
        except BaseException:  # cancelled (timeout): the connection's state is unknown
            self.close()
            raise
        self.idle_since = time.monotonic()
        return Response(status, data)


class Pool:
    """`size` connections to one server, shared by any number of tasks, handed out strictly in
    the order requests asked for one: a freed connection goes straight to the longest-waiting
    request, so a task that just got an answer cannot jump ahead of waiting ones (asyncio.Queue
    lets it, which starves some sessions past the timeout while others finish). With none
    waiting, the most recently freed connection is taken first (kept hot)."""

    def __init__(self, host: str, port: int, size: int, *, timeout_s: float, idle_reuse_s: float = 2.0) -> None:
        self.host, self.port = host, port
        self.timeout_s = timeout_s
        self.stats = ConnectionStats()
        self._all = [Connection(host, port, self.stats, idle_reuse_s) for _ in range(size)]
        self._free = list(self._all)
        self._waiting: deque[asyncio.Future[Connection]] = deque()

    def _head(self, method: str, path: str, body: bytes) -> bytes:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}"]
        if body:
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        elif method in ("POST", "PUT", "PATCH"):
            lines.append("Content-Length: 0")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def request(self, method: str, path: str, body: bytes = b"") -> Response:
        """One request; raises `RequestFailed` (never retries: see the module docstring)."""
        head = self._head(method, path, body)
        try:
            if sys.version_info >= (3, 11):  # no task per request, unlike wait_for before 3.12
                async with asyncio.timeout(self.timeout_s):
                    return await self._send(head, body)
            return await asyncio.wait_for(self._send(head, body), self.timeout_s)
        except asyncio.TimeoutError:
            raise RequestFailed("Timeout", f"no response within {self.timeout_s:g} s") from None

    async def _acquire(self) -> Connection:
        if self._free and not self._waiting:
            return self._free.pop()
        future: asyncio.Future[Connection] = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        try:
            return await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # handed one just as it gave up
                self._release(future.result())
            elif future in self._waiting:  # not yet skipped by a _release
                self._waiting.remove(future)
            raise

    def _release(self, conn: Connection) -> None:
        while self._waiting:
            future = self._waiting.popleft()
            if not future.done():
                future.set_result(conn)
                return
        self._free.append(conn)

    async def _send(self, head: bytes, body: bytes) -> Response:
        conn = await self._acquire()
        try:
            t = time.perf_counter()
            response = await conn.request(head, body)
            response.wire_s = time.perf_counter() - t
            return response
        finally:
            self._release(conn)

    def close(self) -> None:
        for conn in self._all:
            conn.close()
