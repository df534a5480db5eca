"""Freed heap memory goes back to the system between a trainer's stages (coevo/models/memory.py):
a heap full of freed blocks below one live block cannot shrink by itself; after
release_freed_memory the resident set is smaller by most of it."""

from __future__ import annotations

import platform

import pytest

from coevo.models.memory import release_freed_memory, resident_mb

glibc = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's"
)


@glibc
def test_freed_blocks_under_a_live_one_are_handed_back() -> None:
    release_freed_memory()
    # 2 KB objects come from malloc's heap (not mmap); the last one keeps the heap's top in use.
    blocks = [bytes(2048) + bytes([i % 256]) for i in range(100_000)]
    keep = bytes(2048) + b"top"
    grown = resident_mb()
    del blocks
    still = resident_mb()
    released = release_freed_memory()
    assert grown - still < 100  # free() alone did not return the ~200 MB
    assert released >= 100 and resident_mb() <= still - 100
    assert keep.endswith(b"top")


def test_nothing_to_release_is_zero_not_negative() -> None:
    release_freed_memory()
    assert release_freed_memory() >= 0
    assert resident_mb() > 0
