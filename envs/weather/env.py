"""Weather env: AgentGym's Weather tool tasks over an offline weather sandbox (docs/weather.md).

Tools, argument formats, observation texts, the action line, `finish` and the rewards are the
original's (envs/toolusage/); Open-Meteo is replaced by a generated world (envs/weather/world.py)
whose days are pinned where a loaded task's answer needs it.

Options: `data_dir` (AgentBoard's data folder or its weather.jsonl: the `test` split, AgentGym's
indices), `train_tasks` (1000), `test_tasks` (343, generated when no file is given), `seed` (0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coevo.envs.toolusage.env import ToolEnv
from coevo.envs.toolusage.prompt import tool_prompt
from coevo.envs.toolusage.spec import load_specs
from coevo.envs.toolusage.tasks import TaskSet, ToolTask
from coevo.envs.toolusage.toolkit import Toolkit
from coevo.envs.weather import agentgym, scoring
from coevo.envs.weather.agentboard import file_in, load_file
from coevo.envs.weather.tasks import AGENTGYM_TASKS, generate
from coevo.envs.weather.toolkit import WeatherToolkit
from coevo.envs.weather.world import DATA, WeatherWorld, load_cities

SPECS = load_specs(DATA / "tools.json")


@dataclass(frozen=True)
class WeatherShared:
    tasks: TaskSet
    world: WeatherWorld


class WeatherEnv(ToolEnv):
    name = "weather"
    version = "1"
    specs = SPECS
    matcher = scoring.MATCHER
    agentgym_profile = agentgym.PROFILE
    agent_prompt = tool_prompt(SPECS, DATA / "prompt.json")
    action_example = (
        "I need the coordinates of the user's city first.",
        "Action: get_latitude_longitude with Action Input: {'name': 'New York'}",
    )

    @classmethod
    def load_shared(
        cls,
        data_dir: str | None = None,
        train_tasks: int | str = 1000,
        test_tasks: int | str = AGENTGYM_TASKS,
        seed: int | str = 0,
        **_: Any,
    ) -> WeatherShared:
        world = WeatherWorld(load_cities())
        # A file's pins come first, so the generated answers are read from the pinned world.
        test = load_file(SPECS, world, file_in(data_dir)) if data_dir else None
        train = generate(SPECS, world, "train", int(train_tasks), int(seed))
        if test is None:
            test = generate(SPECS, world, "test", int(test_tasks), int(seed))
        return WeatherShared(TaskSet({"train": train, "test": test}), world)

    def make_toolkit(self, task: ToolTask) -> Toolkit:
        config = task.init_config
        return WeatherToolkit(
            SPECS, self.shared.world, str(config.get("current_date", "")), str(config.get("current_location", ""))
        )
