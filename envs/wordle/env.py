"""Wordle env: LMRL-Gym's Wordle as AgentGym's server serves it.

Guess a five-letter word of the 39-word vocabulary in six tries, written as letters or as
space-separated letters ("s h i r e"); each valid guess is answered with a letter per position
and a newline ("b y g b b\\n": g here, y elsewhere, b nowhere), an invalid one with "invalid
word". The hidden word is drawn anew at every guess from the words consistent with the feedback
so far (LMRL-Gym's rules, envs/wordle/game.py), so the task is the seed of those draws. Reward 1
on the winning guess, else 0; done when won or after six guesses. The first observation names
the game (its seed), the rules and the vocabulary; AgentGym's routes answer "Let's start Wordle!" there, as its server
does (its client writes the rules itself).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coevo.envs.base import Env, ResetResult, StepResult, UnknownTask
from coevo.envs.wordle import agentgym, expert, tasks
from coevo.envs.wordle.game import TRIES, Game
from coevo.envs.wordle.scoring import reward
from coevo.wire import AgentPrompt

DATA = Path(__file__).parent / "data"
INVALID = "invalid word"


@dataclass(frozen=True)
class Shared:
    vocabulary: tuple[str, ...]
    rules: str


class WordleEnv(Env):
    name = "wordle"
    version = "1"
    action_format = "a five-letter word of the vocabulary, e.g. s h i r e"
    action_example = ("No letter is known yet; shire tries three common letters.", "s h i r e")
    agent_prompt = AgentPrompt.from_file(DATA / "agent_prompt.json")
    agentgym_profile = agentgym.PROFILE
    max_steps = TRIES
    default_split = "train"
    heldout_splits = ("test",)
    cpu_heavy = False

    @classmethod
    def load_shared(cls, **_: Any) -> Shared:
        vocabulary = tasks.load_vocabulary()
        rules = (DATA / "rules.txt").read_text(encoding="utf-8").strip()
        return Shared(vocabulary, rules.replace("{vocabulary}", "\n".join(vocabulary)))

    def __init__(self, shared: Shared | None = None, **options: Any) -> None:
        super().__init__(shared, **options)
        self.game: Game | None = None

    # --------------------------------------------------------------- catalogue
    def splits(self) -> Mapping[str, int]:
        return {name: len(r) for name, r in tasks.SPLITS.items()}

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        seeds = tasks.SPLITS.get(split, range(0))
        stop = len(seeds) if limit is None else offset + limit
        return [tasks.task_id(s) for s in seeds[offset:stop]]

    def _seed(self, task_id: str) -> int:
        seed = tasks.seed_of(task_id)
        if seed is None:
            raise UnknownTask(f"unknown task id {task_id!r}; tasks are wordle-0 .. wordle-979")
        return seed

    def split_of(self, task_id: str) -> str:
        return tasks.split_of(self._seed(task_id))

    def describe_task(self, task_id: str) -> dict[str, Any]:
        return {"seed": self._seed(task_id)}

    # --------------------------------------------------------------- episode
    def _reset(self, task_id: str, seed: int) -> ResetResult:
        self.game = Game(self.shared.vocabulary, self._seed(task_id))
        # The game number (the seed of the draws) is the only thing that tells tasks apart.
        text = agentgym.FIRST_OBSERVATION if self.agentgym else self.shared.rules.replace("{game}", str(self.game.seed))
        return ResetResult(text, {"task": "guess the hidden five-letter word"})

    def _step(self, action: str) -> StepResult:
        assert self.game is not None
        guess = action.strip().replace(" ", "")  # AgentGym's server reads "s h i r e" as "shire"
        feedback, won, over = self.game.guess(guess)
        observation = feedback + "\n" if feedback.strip() else INVALID
        info = {"valid": bool(feedback), "consistent": len(self.game.filtered)}
        return StepResult(observation, reward(won), over, info=info)

    # --------------------------------------------------------------- expert
    def expert_action(self) -> str | None:
        if self.game is None or self.done:
            return None
        game = self.game
        guess = expert.next_guess(game.vocabulary, game.board, game.filtered, game.guesses)
        return " ".join(guess) if guess else None
