"""One JVM for every session of a process: the ScienceWorld simulator's shared home.

`scienceworld.ScienceWorldEnv` starts a JVM per instance (about 0.3-1.6 s and 300-500 MB resident
each). The simulator's entry object (`PythonInterface`) holds one episode's state, so a process
keeps a single JVM and gives each session its own `PythonInterface` in it (measured ~10 MB of
live heap per loaded session; docs/sciworld.md). The heap is capped (`heap_mb`), which caps the
live sessions a process can hold. Calls into one JVM are serialized by a lock: the simulator
was written for one caller per JVM. A JVM that dies is started again on the next call; sessions
notice (`JvmDied`) and rebuild their episode by replay.
"""

from __future__ import annotations

import subprocess
import threading
from typing import Any

from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway
from py4j.protocol import Py4JError
from scienceworld.constants import BASEPATH, JAR_PATH


class JvmDied(RuntimeError):
    """The JVM a session's simulator lived in is gone (killed, crashed or restarted)."""


class SharedJvm:
    """A lazily started JVM running ScienceWorld's jar, restarted when it dies."""

    def __init__(self, heap_mb: int = 4096, java_options: tuple[str, ...] = ()) -> None:
        self.heap_mb = heap_mb
        #: Further options for the `java` command (the expert's gold-path JVM sets its hashing).
        self.java_options = java_options
        self.lock = threading.RLock()
        #: Bumped on every (re)start: an interface made under an older generation is dead.
        self.generation = 0
        self._gateway: JavaGateway | None = None
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def _start(self) -> None:
        self.stop()
        port, process = launch_gateway(
            classpath=JAR_PATH,
            die_on_exit=True,
            cwd=BASEPATH,
            return_proc=True,
            javaopts=[f"-Xmx{self.heap_mb}m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", *self.java_options],
        )
        self._gateway = JavaGateway(
            gateway_parameters=GatewayParameters(auto_field=True, port=port), java_process=process
        )
        self._process = process
        self.generation += 1

    def stop(self) -> None:
        """Shut the JVM down (it is started again on the next call)."""
        with self.lock:
            if self._gateway is not None:
                try:
                    self._gateway.shutdown()
                except Py4JError:
                    pass
            if self._process is not None and self._process.poll() is None:
                self._process.kill()
                self._process.wait()
            self._gateway, self._process = None, None

    def start(self) -> None:
        """Start the JVM now if it is not running (nothing is made in it)."""
        with self.lock:
            if not self.alive():
                self._start()

    def warm_up(self) -> None:
        """Start the JVM and load one game in it (its classes loaded and compiled): a server does
        this before it answers /health, so its first session does not wait seconds for either."""
        with self.lock:
            server, _ = self.interface()
            server.load("boil", 0, "", False)
            server.step("look around")

    def interface(self) -> tuple[Any, int]:
        """A new simulator (`PythonInterface`) and the generation it belongs to."""
        with self.lock:
            if not self.alive():
                self._start()
            assert self._gateway is not None
            return self._gateway.jvm.scienceworld.runtime.pythonapi.PythonInterface(), self.generation

    def heap_used_mb(self) -> float:
        """Live heap after a full collection (what the sessions hold), for bench/sciworld.py."""
        with self.lock:
            if not self.alive():
                self._start()
            assert self._gateway is not None
            jvm = self._gateway.jvm
            jvm.java.lang.System.gc()
            runtime = jvm.java.lang.Runtime.getRuntime()
            return float(runtime.totalMemory() - runtime.freeMemory()) / 2**20
