"""Where a server's CPU goes, by layer (HTTP, service, env, store), from py-spy's samples.

py-spy samples every thread of the server while wrk loads it. Each sample's stack is given the
layer of its deepest frame that belongs to one (the env's code under the service under the
HTTP stack counts as env); samples of threads that only wait are dropped. The shares times the
process's measured CPU per step give CPU microseconds per step per layer. py-spy is optional:
without it there is no breakdown.

Imported as `layers` by the benchmarks; running this file does nothing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

LAYERS = ("http", "service", "env", "store")
#: (layer, pattern of a frame's file) in the order a stack is read (root first): the last match wins.
_FRAME_LAYER = (
    ("service", re.compile(r"[(/]server/(service|leases|ownership|metrics|runtime|recovery)\.py")),
    ("env", re.compile(r"[(/]envs/")),
    ("store", re.compile(r"([(/]store/|sqlalchemy/|sqlite3/)")),
)
#: Leaf frames of a thread that is waiting, not working.
_IDLE_LEAVES = re.compile(r"^(Condition\.wait|Event\.wait|_worker|wait|select|_wait_for_tstate_lock) ")


def py_spy_path() -> str | None:
    """py-spy on PATH or beside this interpreter (a virtualenv's bin/, not on PATH)."""
    beside = Path(sys.executable).parent / "py-spy"
    return shutil.which("py-spy") or (str(beside) if beside.exists() else None)


def record(pid: int, seconds: float, out: Path, *, rate: int = 250) -> Path:
    """py-spy's raw (folded) samples of process `pid` for `seconds`, written to `out`."""
    binary = py_spy_path()
    if binary is None:
        raise RuntimeError("py-spy is not installed (pip install py-spy)")
    cmd = [binary, "record", "-p", str(pid), "-d", str(max(1, round(seconds))), "-r", str(rate), "-f", "raw"]
    subprocess.run([*cmd, "-o", str(out)], check=True, capture_output=True, timeout=seconds + 60)
    return out


def layer_of(stack: str) -> str | None:
    """The layer of one folded stack (frames `func (file:line)`, root first), None when idle."""
    frames = stack.split(";")
    if _IDLE_LEAVES.match(frames[-1]):
        return None
    layer = "http"
    for frame in frames:
        for name, pattern in _FRAME_LAYER:
            if pattern.search(frame):
                layer = name
    return layer


def shares(folded: Path) -> dict[str, float]:
    """Each layer's share of the working samples in a py-spy raw file."""
    counts: Counter[str] = Counter()
    for line in folded.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        layer = layer_of(stack)
        if layer is not None and n.isdigit():
            counts[layer] += int(n)
    total = sum(counts.values()) or 1
    return {layer: counts[layer] / total for layer in LAYERS}


def top_frames(folded: Path, limit: int = 25) -> list[tuple[str, float]]:
    """The functions with the most working samples, inclusive, as (function, share)."""
    inclusive: Counter[str] = Counter()
    total = 0
    for line in folded.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if not n.isdigit() or layer_of(stack) is None:
            continue
        total += int(n)
        for frame in {re.sub(r":\d+\)$", ")", f) for f in stack.split(";")}:
            inclusive[frame] += int(n)
    return [(frame, count / (total or 1)) for frame, count in inclusive.most_common(limit)]
