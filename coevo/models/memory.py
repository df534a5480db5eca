"""Handing freed memory back to the operating system between a trainer's stages.

A training step allocates and frees gigabytes of small buffers. glibc keeps what was freed in its
heap for reuse, and the heap shrinks only from its top, so a process that has trained once stays
several gigabytes larger than it needs while it goes on to explore or evaluate. AgentEvol run 5
evaluated at 8.0 GB resident, 5.4 GB of it heap; one SmolLM2 training of four steps left 3.6 GB
resident after garbage collection and 1.0 GB after malloc_trim (bench/results/training.md). On a
shared machine those gigabytes decide whether the OOM killer stops a run.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import platform


def resident_mb() -> int:
    """This process's resident set in MiB (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
    except OSError:
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE") // 2**20


def release_freed_memory() -> int:
    """Collect garbage, then hand the C heap's free pages back (glibc's malloc_trim); returns the
    MiB the resident set shrank by. Elsewhere (musl, macOS) only the collection runs."""
    before = resident_mb()
    gc.collect()
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    return max(0, before - resident_mb())
