"""An agent with a known skill profile, for testing the environment side of the GenEnv loop
fast and deterministically: on each rollout it answers a task correctly with a probability
fixed by the task's difficulty knobs (for tasks without knobs, by a hash of the task id), and
otherwise gives a wrong call (its right answer is the simulator's expert answer, so it runs
against a simulator in process or over HTTP alike). Its answers are scored by the simulator like any agent's."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from coevo.genenv.config import GenEnvConfig, preset
from coevo.genenv.pools import Trace
from coevo.genenv.simulator import BatchTask, Simulator

N_TOOLS = {1: 0.95, 2: 0.7, 4: 0.3, 8: 0.05}
N_ARGS = {1: 1.0, 2: 0.7, 3: 0.45}


def success_probability(knobs: dict | None, task_id: str) -> float:
    if not knobs:
        return int(hashlib.sha256(task_id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    p = N_TOOLS[knobs["n_tools"]] * N_ARGS[knobs["n_args"]]
    if knobs.get("phrasing") == "natural":
        p *= 0.9
    return p


class SkillAgent:
    def __init__(
        self,
        simulator: Simulator,
        group_size: int,
        seed: int = 0,
        probability: Callable[[BatchTask], float] | None = None,
    ) -> None:
        """`probability`: the chance of the right answer per task (default: success_probability)."""
        self.simulator = simulator
        self.probability = probability
        self.group_size = group_size
        self.seed = seed
        self.calls = 0
        #: The task ids of each train_epoch and sample call, in order, and train_epoch's tasks.
        self.trained: list[list[str]] = []
        self.sampled: list[list[str]] = []
        self.trained_tasks: list[list[BatchTask]] = []

    def train_epoch(self, tasks: Sequence[BatchTask]) -> list[Trace]:
        self.calls += 1
        self.trained.append([t.task_id for t in tasks])
        self.trained_tasks.append(list(tasks))
        return self._rollouts(tasks, f"{self.seed}:{self.calls}")

    def sample(self, tasks: Sequence[BatchTask], seed: int) -> list[Trace]:
        self.sampled.append([t.task_id for t in tasks])
        return self._rollouts(tasks, f"sample:{seed}")

    def _rollouts(self, tasks: Sequence[BatchTask], stream: str) -> list[Trace]:
        pairs = []
        for task in tasks:
            gold = self.simulator.expert(task.task_id)
            assert gold is not None, task.task_id
            if self.probability is not None:
                p = self.probability(task)
            else:
                p = success_probability(task.context.get("knobs"), task.task_id)
            rng = random.Random(f"{stream}:{task.task_id}")
            for _ in range(self.group_size):
                pairs.append((task.task_id, gold if rng.random() < p else "wrong_tool(x=0)"))
        rewards = self.simulator.score(pairs)
        return [Trace(t, a, r) for (t, a), r in zip(pairs, rewards)]

    def save(self, directory: Path, optimizer: bool) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "config.json").write_text("{}")

    def load(self, directory: Path) -> None:
        pass


def skill_preset(**overrides: Any) -> GenEnvConfig:
    """The ci preset for runs with the skill agent: it keeps no model checkpoint, so there is
    nothing to score on held-out benchmark tasks (test_trainer_grpo covers those rows)."""
    return preset("ci", **{"heldout": (), **overrides})
