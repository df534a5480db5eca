"""bench/loadgen.py, the load generator bench/load.py measures with: what it counts as a
failure decides the benchmark's success rate, so its keep-alive handling is pinned here against
a real uvicorn server, and its no-retry and fairness rules against a raw TCP server that shows
exactly which requests arrived."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn

from coevo.config import ServerConfig
from coevo.server import create_app

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from loadgen import Pool, RequestFailed  # noqa: E402


@contextmanager
def uvicorn_server(keep_alive_s: float) -> Iterator[int]:
    """The guess env on uvicorn, closing connections idle `keep_alive_s`; yields the port."""
    app = create_app("guess", config=ServerConfig(record=False))
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", timeout_keep_alive=keep_alive_s
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "server did not start"
        time.sleep(0.02)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(10)


def test_a_connection_the_server_closed_while_idle_is_reopened_before_sending() -> None:
    async def main(port: int) -> None:
        pool = Pool("127.0.0.1", port, 1, timeout_s=10, idle_reuse_s=60)  # only EOF can tell
        r = await pool.request("POST", "/sessions", json.dumps({"seed": 1}).encode())
        sid = json.loads(r.body)["session_id"]
        await asyncio.sleep(0.8)  # past the server's keep-alive: it closed the connection
        r = await pool.request("POST", f"/sessions/{sid}/step", b'{"action": "guess 50"}')
        assert r.status == 200
        assert (pool.stats.opened, pool.stats.reopened_eof, pool.stats.requests) == (2, 1, 2)
        pool.close()

    with uvicorn_server(keep_alive_s=0.3) as port:
        asyncio.run(main(port))


def test_a_connection_idle_past_idle_reuse_is_replaced_before_the_server_could_close_it() -> None:
    async def main(port: int) -> None:
        pool = Pool("127.0.0.1", port, 1, timeout_s=10, idle_reuse_s=0.2)
        assert (await pool.request("GET", "/health")).status == 200
        assert (await pool.request("GET", "/health")).status == 200  # reused: not idle yet
        await asyncio.sleep(0.4)
        assert (await pool.request("GET", "/health")).status == 200
        assert (pool.stats.opened, pool.stats.reopened_idle, pool.stats.reopened_eof) == (2, 1, 0)
        pool.close()

    with uvicorn_server(keep_alive_s=5) as port:
        asyncio.run(main(port))


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, str], Awaitable[bool]]


async def _raw_server(handle: Handler, seen: list[str]) -> tuple[asyncio.Server, int]:
    """A TCP server reading HTTP/1.1 requests without bodies; `handle` answers (True) or not."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                break
            path = head.split(b" ", 2)[1].decode()
            seen.append(path)
            if not await handle(reader, writer, path):
                break
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def _ok(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter, _path: str) -> bool:
    writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
    await writer.drain()
    return True


def test_a_request_whose_connection_closes_after_it_was_written_fails_and_is_never_retried() -> None:
    async def close_without_answer(_r: asyncio.StreamReader, _w: asyncio.StreamWriter, _p: str) -> bool:
        return False

    async def main() -> None:
        seen: list[str] = []
        server, port = await _raw_server(close_without_answer, seen)
        pool = Pool("127.0.0.1", port, 2, timeout_s=10)
        with pytest.raises(RequestFailed) as failed:
            await pool.request("POST", "/sessions/x/step", b'{"action": "guess 1"}')
        assert failed.value.kind == "ClosedBeforeResponse"
        await asyncio.sleep(0.1)
        assert seen == ["/sessions/x/step"]  # sent once, not again on a fresh connection
        pool.close()
        await asyncio.sleep(0.05)  # the server's handlers see the EOF and end
        server.close()

    asyncio.run(main())


@pytest.mark.parametrize("size", [1, 2])
def test_connections_go_to_waiting_requests_in_the_order_they_asked(size: int) -> None:
    """A task that just got its answer must not take the connection ahead of tasks already
    waiting (it would with asyncio.Queue): the busy task's later requests queue behind them."""

    async def main() -> list[str]:
        seen: list[str] = []
        server, port = await _raw_server(_ok, seen)
        pool = Pool("127.0.0.1", port, size, timeout_s=10)

        async def busy(name: str) -> None:
            for k in range(3):
                assert (await pool.request("GET", f"/{name}{k}")).status == 200

        async def once(name: str) -> None:
            assert (await pool.request("GET", f"/{name}")).status == 200

        first = [asyncio.ensure_future(busy(f"a{i}-")) for i in range(size)]
        await asyncio.sleep(0)  # the busy tasks hold every connection
        await asyncio.gather(*first, once("b"), once("c"))
        pool.close()
        await asyncio.sleep(0.05)  # the server's handlers see the EOF and end
        server.close()
        return seen

    seen = asyncio.run(main())
    assert seen.index("/b") < seen.index("/a0-1") and seen.index("/c") < seen.index("/a0-1")
