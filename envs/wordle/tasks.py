"""Wordle's tasks: seeds, as AgentGym's Wordle server takes them, and our splits over them.

A task is the seed of the episode's random generator (LMRL-Gym draws the hidden word anew from
the consistent words at every guess; the seed fixes those draws). AgentGym's /reset sends
`{"seed": i}`; task `wordle-<i>` is seed i. AgentGym reports 955 training trajectories and 25
evaluation tasks for Wordle without publishing which seeds, so the split is ours: seeds 0-24 are
`test` (held out), 25-979 `train`. The vocabulary is LMRL-Gym's `tweet_words.txt` (39 words),
the one AgentGym's server loads (data/vocab.txt).
"""

from __future__ import annotations

from pathlib import Path

VOCABULARY = Path(__file__).parent / "data" / "vocab.txt"
PREFIX = "wordle-"
TEST = range(0, 25)
TRAIN = range(25, 980)
SPLITS = {"train": TRAIN, "test": TEST}


def load_vocabulary(path: Path = VOCABULARY) -> tuple[str, ...]:
    """The words of the file, as LMRL-Gym reads it: stripped lines of five characters."""
    words = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return tuple(w for w in words if len(w) == 5)


def task_id(seed: int) -> str:
    return f"{PREFIX}{seed}"


def seed_of(task: str) -> int | None:
    """The seed a task id names, or None when it names none of ours."""
    number = task.removeprefix(PREFIX)
    if number == task or not (number.isascii() and number.isdigit()) or (len(number) > 1 and number[0] == "0"):
        return None
    seed = int(number)
    return seed if any(seed in r for r in SPLITS.values()) else None


def split_of(seed: int) -> str:
    return next(name for name, r in SPLITS.items() if seed in r)
