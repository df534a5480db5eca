"""One session's ScienceWorld episode in the shared JVM, with the API's step arithmetic.

The step mirrors `ScienceWorldEnv.step` of the `scienceworld` package (what AgentGym's server
calls): the simulator's observation, the score as a percentage, the reward as its change, and
the done rule (envs/sciworld/scoring.py). It leaves out what the API also computes every step and
AgentGym's server drops (the list of valid action-object combinations, the look, the inventory),
which is most of a step's cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from py4j.protocol import Py4JError

from coevo.envs.sciworld.jvm import JvmDied, SharedJvm
from coevo.envs.sciworld.scoring import STEP_LIMIT, episode_over, percent


@dataclass(frozen=True)
class Outcome:
    observation: str
    score: int
    reward: int  # the change of score, in points (AgentGym's `reward`)
    done: bool
    moves: int


class Episode:
    """A loaded (task, variation) in its own `PythonInterface`."""

    def __init__(self, jvm: SharedJvm, task: str, variation: int, *, gold_path: bool = False) -> None:
        self.jvm = jvm
        self.task = task
        self.variation = variation
        self.last_score = 0
        with jvm.lock:
            self._server, self._generation = jvm.interface()
            self._call(lambda s: s.load(task, variation, "", gold_path))

    def _call(self, fn: Any) -> Any:
        """Run `fn(server)` under the JVM's lock; JvmDied if the JVM this episode lives in is gone."""
        with self.jvm.lock:
            if self._generation != self.jvm.generation or not self.jvm.alive():
                raise JvmDied(f"the JVM of {self.task} variation {self.variation} is gone")
            try:
                return fn(self._server)
            except Py4JError as exc:
                if not self.jvm.alive():
                    raise JvmDied(str(exc)) from exc
                raise

    def task_description(self) -> str:
        return str(self._call(lambda s: s.getTaskDescription()))

    def gold_actions(self) -> list[str]:
        return [str(a) for a in self._call(lambda s: s.getGoldActionSequence())]

    def step(self, action: str) -> Outcome:
        def run(server: Any) -> tuple[str, float, bool, int]:
            return str(server.step(action)), server.getScore(), server.getCompleted(), server.getNumMoves()

        observation, raw, completed, moves = self._call(run)
        score = percent(raw)
        reward, self.last_score = score - self.last_score, score
        return Outcome(observation, score, reward, episode_over(score, bool(completed), int(moves), STEP_LIMIT), moves)
