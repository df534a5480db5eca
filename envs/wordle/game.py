"""LMRL-Gym's Wordle: what is known about each letter, and a hidden word redrawn at every guess.

LMRL-Gym does not fix the hidden word. It keeps, for each of the 26 letters and 5 positions,
whether the letter is there, not there or possibly there; the words that fit that knowledge are
the "filtered" vocabulary. Each valid guess draws a hidden word from the filtered words with the
episode's random generator (`random.Random(seed)`, one draw per valid guess), updates the
knowledge from the guess against it, and answers with a letter per position read off the
knowledge: g (here), b (in no position), y (not here). The game is won when one word fits and it
has been guessed; it ends then or after six guesses, invalid ones included (a guess that is not
five lower-case letters of the vocabulary is invalid: no draw, no feedback). This module follows
`llm_rl_scripts/wordle/env/game.py` (LMRL-Gym) rule for rule; the code is ours.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass, field
from enum import Enum

LETTERS = string.ascii_lowercase
WORD_LENGTH = 5
TRIES = 6


class Knowledge(Enum):
    NOT_HERE = 0
    POSSIBLE = 1
    HERE = 2


#: A letter's knowledge at the five positions.
LetterState = tuple[Knowledge, ...]
UNKNOWN: LetterState = (Knowledge.POSSIBLE,) * WORD_LENGTH
ABSENT: LetterState = (Knowledge.NOT_HERE,) * WORD_LENGTH


def satisfies(letter: str, known: LetterState, word: str) -> bool:
    """Whether `word` fits what is known about `letter` (LMRL-Gym's `word_satisfies`)."""
    if known == UNKNOWN:
        return True
    if known == ABSENT:
        return letter not in word
    for i, k in enumerate(known):
        if k is Knowledge.HERE and word[i] != letter:
            return False
        if k is Knowledge.NOT_HERE and word[i] == letter:
            return False
    return letter in word


@dataclass(frozen=True)
class Board:
    """The knowledge about every letter."""

    letters: tuple[LetterState, ...] = (UNKNOWN,) * len(LETTERS)

    def fits(self, word: str) -> bool:
        return all(satisfies(c, k, word) for c, k in zip(LETTERS, self.letters))

    def after(self, guess: str, hidden: str) -> Board:
        """The knowledge once `guess` is compared with `hidden`, position by position."""
        letters = list(self.letters)
        for i, c in enumerate(guess):
            index = LETTERS.index(c)
            if c == hidden[i]:
                letters[index] = _set(letters[index], i, Knowledge.HERE)
            elif c in hidden:
                letters[index] = _set(letters[index], i, Knowledge.NOT_HERE)
            else:
                letters[index] = ABSENT
        return Board(tuple(letters))

    def feedback(self, guess: str) -> str:
        """The letters LMRL-Gym shows for a guess, read off the knowledge ("g", "b", "y")."""
        out = []
        for i, c in enumerate(guess):
            known = self.letters[LETTERS.index(c)]
            if known[i] is Knowledge.HERE:
                out.append("g")
            elif known == ABSENT:
                out.append("b")
            elif known[i] is Knowledge.NOT_HERE:
                out.append("y")
        return " ".join(out)


def _set(known: LetterState, position: int, value: Knowledge) -> LetterState:
    return tuple(value if i == position else k for i, k in enumerate(known))


@dataclass
class Game:
    """One episode: the vocabulary, the knowledge, the guesses, the random draws."""

    vocabulary: tuple[str, ...]
    seed: int
    board: Board = field(default_factory=Board)
    guesses: list[str] = field(default_factory=list)
    filtered: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.vocabulary_set = frozenset(self.vocabulary)
        self.filtered = list(self.vocabulary)

    def valid(self, guess: str) -> bool:
        return len(guess) == WORD_LENGTH and all(c in LETTERS for c in guess) and guess in self.vocabulary_set

    def guess(self, guess: str) -> tuple[str, bool, bool]:
        """(feedback, won, over) for one guess; feedback "" for an invalid one."""
        self.guesses.append(guess)
        if not self.valid(guess):
            return "", False, len(self.guesses) == TRIES
        hidden = self.rng.choice(self.filtered)
        self.board = self.board.after(guess, hidden)
        self.filtered = [w for w in self.vocabulary if self.board.fits(w)]
        won = len(self.filtered) == 1 and self.filtered[0] in self.guesses
        return self.board.feedback(guess), won, won or len(self.guesses) == TRIES
