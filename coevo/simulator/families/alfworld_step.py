"""ALFWorld next-action tasks, driven through the ALFWorld env's scene generator.

A scene is generated from the knobs (task type, room size, distractors), the expert plays
`progress` of its plan, and the agent must give the expert's next command, seeing the task,
its previous commands, the latest observation and the admissible commands (exact match).

Knobs:
- task_type:       one of ALFWorld's six task types.
- max_receptacles: room size (receptacles kept; the ones the task needs always stay).
- distractors:     non-goal object classes placed in the room.
- progress:        "start" (first command), "middle" or "late" in the expert's plan.
"""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Mapping
from typing import Any

from coevo.envs.alfworld.scoring import TASK_TYPES
from coevo.simulator.families.base import TaskFamily
from coevo.simulator.task_record import SimTask

_PROGRESS = {"start": 0.0, "middle": 0.5, "late": 0.85}


class AlfworldStepFamily(TaskFamily):
    name = "alfworld_step"
    knobs = {
        "task_type": TASK_TYPES,
        "max_receptacles": (4, 8, 16),
        "distractors": (0, 3, 8),
        "progress": tuple(_PROGRESS),
    }
    demo_knobs = {"task_type": "pick_and_place_simple", "max_receptacles": 8, "distractors": 3, "progress": "middle"}

    def available(self) -> bool:
        return importlib.util.find_spec("coevo.envs.alfworld.generator") is not None

    def _generate(self, knobs: Mapping[str, Any], rng: random.Random) -> SimTask:
        from coevo.envs.alfworld import engine, expert
        from coevo.envs.alfworld.dialects import dialect
        from coevo.envs.alfworld.game import compile_game
        from coevo.envs.alfworld.generator import Knobs, generate

        self.check_knobs(knobs)
        scene = generate(
            Knobs(
                task_type=knobs["task_type"], max_receptacles=knobs["max_receptacles"], distractors=knobs["distractors"]
            ),
            seed=rng.randrange(2**31),
        )
        game = compile_game(scene, dialect("2.1.2"))
        state = engine.State(game)
        observation = engine.intro(game, state)
        turns = expert.plan(game, state, with_opening=False)
        done = int(_PROGRESS[knobs["progress"]] * (len(turns) - 1))
        for turn in turns[:done]:
            observation = engine.step(game, state, turn.action).feedback
        gold = turns[done].action
        history = ", ".join(t.action for t in turns[:done]) or "none yet"
        admissible = engine.admissible(game, state)
        lines = [
            f"You are in a household. Your task is to: {game.task}",
            f"Your commands so far: {history}.",
            f"Latest observation: {observation.strip()}",
            "Admissible commands: " + ", ".join(admissible),
            "What is the next command? Reply with one admissible command.",
        ]
        return SimTask(
            self.name, "\n".join(lines), [gold], "exact", choices=list(admissible), meta={"knobs": dict(knobs)}
        )
