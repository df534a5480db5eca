"""The Wordle solver: the guess that leaves the fewest consistent words on average.

It sees what an agent sees (the feedback, through the knowledge it builds) and nothing of the
random draws. Among the vocabulary's words it picks the one whose feedback splits the words
still consistent into the smallest expected remainder, a consistent word first on ties (it may
win at once), then the vocabulary's order. One consistent word left: guess it (the game is won
when one word fits and it has been guessed).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from coevo.envs.wordle.game import Board


def next_guess(
    vocabulary: Sequence[str], board: Board, consistent: Sequence[str], guessed: Sequence[str]
) -> str | None:
    """The solver's guess; positions recur across episodes (every opening is the same), so the
    answers are cached."""
    used = tuple(g for g in guessed if g in vocabulary)
    return _best(tuple(vocabulary), board, tuple(consistent), used)


@lru_cache(maxsize=65536)
def _best(
    vocabulary: tuple[str, ...], board: Board, consistent: tuple[str, ...], guessed: tuple[str, ...]
) -> str | None:
    if not consistent:
        return None
    if len(consistent) == 1:
        return consistent[0]
    fits = set(consistent)
    best: tuple[float, int, int] | None = None
    choice = None
    for order, guess in enumerate(vocabulary):
        if guess in guessed and guess not in fits:
            continue
        # The words that fit afterwards depend only on the board reached, so group by it.
        outcomes = Counter(board.after(guess, hidden) for hidden in consistent)
        remaining = sum(n * sum(1 for w in consistent if after.fits(w)) for after, n in outcomes.items())
        key = (remaining / len(consistent), 0 if guess in fits else 1, order)
        if best is None or key < best:
            best, choice = key, guess
    return choice
