"""Bring env servers up for a trainer or the demo, and always take them down again.

Local subprocesses (`python -m coevo.cli serve ENV`) by default; Docker containers through the
docker SDK when asked and an engine is reachable. Either way the context manager waits for each
server's /health, yields {env: base_url}, and tears everything down on exit — also on errors
and Ctrl-C — so no server outlives the job that started it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

LOCALHOST = "127.0.0.1"


class LaunchError(RuntimeError):
    """A server did not come up healthy in time."""


def free_port(host: str = LOCALHOST) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_healthy(url: str, timeout: float, alive: Any = None) -> None:
    """Poll GET /health until it answers 200; `alive()` returning False aborts early."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    with httpx.Client(timeout=2.0) as http:
        while time.monotonic() < deadline:
            if alive is not None and not alive():
                raise LaunchError(f"server for {url} exited during start-up")
            try:
                if http.get(url + "/health").status_code == 200:
                    return
            except httpx.TransportError as exc:
                last = exc
            time.sleep(0.1)
    raise LaunchError(f"{url} not healthy after {timeout:.0f}s (last error: {last!r})")


class Servers(dict[str, str]):
    """{env: base_url}, plus the process id of each local server (for memory measurements)."""

    def __init__(self) -> None:
        super().__init__()
        self.pids: dict[str, int] = {}


@dataclass
class ServerSpec:
    """How to start one env server."""

    env: str
    options: Mapping[str, Any] = field(default_factory=dict)
    extra_args: Sequence[str] = ()


def _as_specs(envs: Sequence[str | ServerSpec]) -> list[ServerSpec]:
    return [e if isinstance(e, ServerSpec) else ServerSpec(e) for e in envs]


def _serve_args(spec: ServerSpec, host: str, port: int, db_url: str | None) -> list[str]:
    args = ["serve", spec.env, "--host", host, "--port", str(port)]
    if db_url:
        args += ["--db-url", db_url]
    for key, value in spec.options.items():
        args += ["--option", f"{key}={value}"]
    return args + list(spec.extra_args)


@contextlib.contextmanager
def launch_local(
    envs: Sequence[str | ServerSpec],
    *,
    host: str = LOCALHOST,
    db_url: str | None = None,
    startup_timeout: float = 180.0,
    log_dir: str | None = None,
    env_vars: Mapping[str, str] | None = None,
) -> Iterator[Servers]:
    """Start one `coevo serve` subprocess per env on free ports; yields {env: url} (with .pids)."""
    specs = _as_specs(envs)
    logs = log_dir or tempfile.mkdtemp(prefix="coevo-servers-")
    procs: list[tuple[subprocess.Popen[bytes], Any]] = []
    urls = Servers()
    try:
        for spec in specs:
            port = free_port(host)
            log = open(os.path.join(logs, f"{spec.env.replace(':', '_')}.log"), "wb")
            proc = subprocess.Popen(
                # --exit-with-parent: the server stops itself if we die without this clean-up (SIGKILL).
                [sys.executable, "-m", "coevo.cli", *_serve_args(spec, host, port, db_url), "--exit-with-parent"],
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, **(env_vars or {})},
                start_new_session=True,  # Ctrl-C in the terminal reaches us, and we stop them in order
            )
            procs.append((proc, log))
            urls[spec.env] = f"http://{host}:{port}"
            urls.pids[spec.env] = proc.pid
        for (proc, log), (env, url) in zip(procs, urls.items()):
            try:
                wait_healthy(url, startup_timeout, alive=lambda p=proc: p.poll() is None)
            except LaunchError as exc:
                log.flush()
                with open(log.name, "rb") as f:
                    tail = f.read()[-2000:].decode(errors="replace")
                raise LaunchError(f"{env}: {exc}\n--- server log ---\n{tail}") from None
        yield urls
    finally:
        for proc, _ in procs:
            if proc.poll() is None:
                proc.terminate()  # SIGTERM: uvicorn's lifespan flushes the store
        for proc, log in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()


@contextlib.contextmanager
def env_servers(
    envs: Sequence[str],
    *,
    urls: Mapping[str, Sequence[str]] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    db_url: str | None = None,
) -> Iterator[dict[str, list[str]]]:
    """{env: [base urls]} for a job over `envs`: the given URLs where there are any, and local
    `coevo serve` subprocesses (with their env `options`) for the rest, stopped on exit."""
    given = {env: list(u) for env, u in (urls or {}).items() if u}
    missing = [env for env in envs if env not in given]
    if not missing:
        yield given
        return
    specs = [ServerSpec(env, dict((options or {}).get(env, {}))) for env in missing]
    with launch_local(specs, db_url=db_url) as started:
        yield {**given, **{env: [url] for env, url in started.items()}}


def docker_available() -> bool:
    """True when the docker SDK is installed and an engine answers a ping."""
    try:
        import docker

        docker.from_env(timeout=3).ping()
        return True
    except Exception:
        return False


@contextlib.contextmanager
def launch_docker(
    envs: Sequence[str | ServerSpec],
    *,
    image: str = "coevo:latest",
    db_url: str | None = None,
    startup_timeout: float = 180.0,
) -> Iterator[dict[str, str]]:
    """Start one container of `image` per env, published on 127.0.0.1 only; yields {env: url}."""
    import docker

    client = docker.from_env()
    containers = []
    urls: dict[str, str] = {}
    try:
        for spec in _as_specs(envs):
            port = free_port()
            container = client.containers.run(
                image,
                command=_serve_args(spec, "0.0.0.0", 8000, db_url),  # inside the container only
                ports={"8000/tcp": (LOCALHOST, port)},
                detach=True,
                labels={"coevo.env": spec.env},
            )
            containers.append(container)
            urls[spec.env] = f"http://{LOCALHOST}:{port}"
        for container, url in zip(containers, urls.values()):
            wait_healthy(url, startup_timeout, alive=lambda c=container: (c.reload(), c.status)[1] != "exited")
        yield urls
    finally:
        for container in containers:
            with contextlib.suppress(Exception):
                container.remove(force=True)


@contextlib.contextmanager
def launch(envs: Sequence[str | ServerSpec], *, docker: bool | None = False, **kwargs: Any) -> Iterator[dict[str, str]]:
    """Start servers for `envs`: subprocesses, or containers when docker=True (or None and an
    engine is reachable). Yields {env: base_url}."""
    use_docker = docker_available() if docker is None else docker
    if use_docker:
        with launch_docker(
            envs, **{k: v for k, v in kwargs.items() if k in {"image", "db_url", "startup_timeout"}}
        ) as urls:
            yield urls
    else:
        with launch_local(envs, **{k: v for k, v in kwargs.items() if k != "image"}) as urls:
            yield urls
