"""One env past one core: a `coevo serve` process per core on one store, behind the client's
replica list (docs/server.md, "One env on several cores"). Sessions spread over the processes
and stay on theirs; a process that is killed and started again on its address rebuilds its
sessions from the store on their next request, while the other process's sessions never notice.
"""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import pytest

from coevo.client.errors import ServerUnreachable
from coevo.client.http import EnvClient
from tests.server.serve_processes import serve_process
from tests.server.test_recovery import _free_port


def test_processes_share_the_sessions_and_a_restarted_one_recovers_its_own(sqlite_url: str, tmp_path: Path) -> None:
    ports = [_free_port(), _free_port()]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    procs = [serve_process(sqlite_url, port, tmp_path / f"{i}.log") for i, port in enumerate(ports)]
    try:
        with EnvClient(urls) as client:
            sessions = [client.create(task_id=f"train-{i}") for i in range(6)]
            assert sorted(s.url for s in sessions) == sorted(urls * 3)  # spread evenly
            for session in sessions:
                for guess in (101, 102):  # out of range: never ends the episode
                    session.step(f"guess {guess}")
            assert [httpx.get(f"{url}/health").json()["sessions"] for url in urls] == [3, 3]

            procs[0].send_signal(signal.SIGKILL)
            procs[0].wait(timeout=10)
            on_dead = [s for s in sessions if s.url == urls[0]]
            on_live = [s for s in sessions if s.url == urls[1]]
            for session in on_live:  # the other process's sessions go on as if nothing happened
                assert session.step("guess 103").info["step"] == 3
            with pytest.raises(ServerUnreachable):
                on_dead[0].step("guess 103")  # never resent elsewhere: it might have acted

            procs[0] = serve_process(sqlite_url, ports[0], tmp_path / "0-again.log")
            for session in on_dead:  # rebuilt from the store on their first request
                result = session.step("guess 103")
                assert result.info["step"] == 3 and session.url == urls[0]
                assert session.state().steps == 3
            metrics = httpx.get(f"{urls[0]}/metrics").text
            assert 'coevo_sessions_recovered_total{env="guess"} 3.0' in metrics
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=10)
