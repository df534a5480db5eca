"""ALFWorld's splits for generated games: sizes, task-type mix, floor plans, task ids.

Like ALFRED, `train` and `valid_seen` are laid out in the same floor plans and `valid_unseen`
in four floor plans neither ever uses (10, 219, 308, 424: one kitchen, living room, bedroom and
bathroom). ALFRED's test floor plans (9, 29, 215, 226, 315, 325, 404, 425) are used by no split.
Default sizes and the task-type mix of each split are ALFWorld's (3553 / 140 / 134 games).

A task id is `<split>-<index>`; the game is generated from a seed derived from both, so any
process regenerates the same game from the id alone and nothing needs storing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping


UNSEEN_FLOORPLANS: tuple[int, ...] = (10, 219, 308, 424)
TEST_FLOORPLANS: tuple[int, ...] = (9, 29, 215, 226, 315, 325, 404, 425)
ALL_FLOORPLANS: tuple[int, ...] = tuple([*range(1, 31), *range(201, 231), *range(301, 331), *range(401, 431)])
SEEN_FLOORPLANS: tuple[int, ...] = tuple(n for n in ALL_FLOORPLANS
                                         if n not in UNSEEN_FLOORPLANS and n not in TEST_FLOORPLANS)

SPLITS: tuple[str, ...] = ("train", "valid_seen", "valid_unseen")
DEFAULT_SIZES: dict[str, int] = {"train": 3553, "valid_seen": 140, "valid_unseen": 134}
#: Games per task type in ALFWorld's splits, in goals.TASK_TYPES order.
TYPE_COUNTS: dict[str, tuple[int, ...]] = {
    "train": (790, 308, 650, 459, 533, 813),
    "valid_seen": (35, 13, 27, 16, 25, 24),
    "valid_unseen": (24, 18, 31, 23, 21, 17),
}
FLOORPLANS: dict[str, tuple[int, ...]] = {
    "train": SEEN_FLOORPLANS,
    "valid_seen": SEEN_FLOORPLANS,
    "valid_unseen": UNSEEN_FLOORPLANS,
}


def task_id(split: str, index: int) -> str:
    return f"{split}-{index}"


def parse_task_id(tid: str) -> tuple[str, int] | None:
    split, sep, index = tid.rpartition("-")
    if not sep or split not in SPLITS or not index.isdigit():
        return None
    return split, int(index)


def seed_of(split: str, index: int, salt: int = 0) -> int:
    """The generator seed of a task: stable across processes and Python versions."""
    digest = hashlib.sha256(f"alfworld:{salt}:{split}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def type_sequence(split: str, size: int) -> bytes:
    """The task type (index into goals.TASK_TYPES) of every game of a split of `size` games.

    Totals follow ALFWorld's counts scaled to `size` (largest remainder; exactly the real counts
    at the real size), dealt interleaved so that any prefix has about the real mix.
    """
    counts = TYPE_COUNTS[split]
    total = sum(counts)
    shares = [c * size / total for c in counts]
    targets = [int(s) for s in shares]
    by_remainder = sorted(range(len(counts)), key=lambda t: (-(shares[t] - targets[t]), t))
    for t in by_remainder[: size - sum(targets)]:
        targets[t] += 1
    dealt = [0] * len(counts)
    out = bytearray()
    for i in range(size):
        t = max((t for t in range(len(counts)) if dealt[t] < targets[t]),
                key=lambda t: (targets[t] * (i + 1) / size - dealt[t], -t))
        dealt[t] += 1
        out.append(t)
    return bytes(out)


def sizes_from(option: Mapping[str, int] | None) -> dict[str, int]:
    sizes = dict(DEFAULT_SIZES)
    for split, size in (option or {}).items():
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}; known: {', '.join(SPLITS)}")
        if int(size) < 0:
            raise ValueError(f"split size must be >= 0, got {size}")
        sizes[split] = int(size)
    return sizes
