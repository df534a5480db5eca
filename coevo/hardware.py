"""What the local hardware does fast: decides mixed precision when a config says "auto", and
how many threads a compute call should use while other processes share the cores.

On CPUs with native bf16 instructions — Intel AMX (Sapphire Rapids and later) or AVX-512 BF16
(AMD Zen 4 and later, Intel Cooper Lake) — oneDNN runs bf16 matrix products natively, so
training a small model under bf16 autocast is several times faster (bench/train_step.py: 3.5x a
SmolLM2-135M step on a 2-core Zen 4); without them bf16 on a CPU is emulated and slower.
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass
from pathlib import Path

SETTINGS = ("auto", "true", "false")


@functools.cache
def cpu_flags() -> frozenset[str]:
    """The CPU feature flags the kernel reports (empty where /proc/cpuinfo is unavailable)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.partition(":")[2].split())
    return frozenset()


def cpu_has_native_bf16() -> bool:
    """Whether the CPU multiplies bf16 natively (AMX tiles or AVX-512 BF16 dot products)."""
    return bool(cpu_flags() & {"amx_bf16", "avx512_bf16"})


def use_bf16(setting: str) -> bool:
    """Resolve a bf16 setting: "true", "false", or "auto" (CUDA with bf16 support, else a CPU
    with native bf16)."""
    if setting not in SETTINGS:
        raise ValueError(f"bf16 must be one of {', '.join(SETTINGS)}, got {setting!r}")
    if setting != "auto":
        return setting == "true"
    import torch

    if torch.cuda.is_available():
        return torch.cuda.is_bf16_supported()
    return cpu_has_native_bf16()


# ---------------------------------------------------------------------------- busy cores
_PROC_STAT = Path("/proc/stat")


@dataclass(frozen=True)
class CpuSample:
    """The machine's busy CPU seconds and this process's own, at one moment."""

    busy_s: float
    own_s: float
    at: float


def cpu_sample() -> CpuSample | None:
    """Now's sample (Linux; None where /proc/stat cannot be read)."""
    try:
        values = [int(v) for v in _PROC_STAT.read_text().split("\n", 1)[0].split()[1:9]]
    except (OSError, ValueError, IndexError):
        return None
    idle = values[3] + values[4]  # idle + iowait; guest time is already inside user
    busy = (sum(values) - idle) / os.sysconf("SC_CLK_TCK")
    return CpuSample(busy, time.process_time(), time.monotonic())


def others_busy_cores(before: CpuSample, after: CpuSample) -> float:
    """How many cores other processes kept busy between two samples: the machine's busy time
    minus this process's own (all its threads), per second of wall time."""
    wall = after.at - before.at
    if wall <= 0:
        return 0.0
    return max(0.0, ((after.busy_s - before.busy_s) - (after.own_s - before.own_s)) / wall)


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class ThreadChooser:
    """How many threads a compute call should use: every core, or one while other processes
    keep at least half of the cores busy. Threads that share a core with another busy process
    wait on each other at every barrier: on two cores beside one busy process, llama.cpp
    decoded a batch in 7-8 s on one thread and in 11-32 s on two (3.5-4 s on two when idle).
    The load is measured over the time since the previous choice, so no call waits to sample."""

    def __init__(self, cores: int | None = None) -> None:
        self.cores = cores or usable_cores()
        self.threads = self.cores
        self._last = cpu_sample()

    def choose(self) -> int:
        now = cpu_sample()
        if now is not None and self._last is not None and now.at - self._last.at >= 0.05:
            others = others_busy_cores(self._last, now)
            self.threads = 1 if others >= self.cores / 2 else self.cores
        if now is not None:
            self._last = now
        return self.threads
