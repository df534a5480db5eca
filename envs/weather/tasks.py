"""Weather's generated tasks: questions of the kinds in data/templates.json "templates", each
answered by the expert with the sandbox's tools (AgentBoard's own file: envs/weather/agentboard.py).
"""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from typing import Any

from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.tasks import ToolTask
from coevo.envs.weather import expert
from coevo.envs.weather.toolkit import WeatherToolkit
from coevo.envs.weather.world import DATA, WeatherWorld, load_cities

TEMPLATES: dict[str, Any] = json.loads((DATA / "templates.json").read_text(encoding="utf-8"))
#: AgentGym's Weather file has 343 tasks; the generated test split has as many.
AGENTGYM_TASKS = 343
_FIRST_DAY = date(2015, 1, 1)
_DAYS = 3650


def toolkit_for(specs: tuple[ToolSpec, ...], world: WeatherWorld, current: str, location: str) -> WeatherToolkit:
    return WeatherToolkit(specs, world, current, location)


def generate(specs: tuple[ToolSpec, ...], world: WeatherWorld, split: str, count: int, seed: int) -> list[ToolTask]:
    """`count` questions cycling through the kinds, each solved on `world`. The held-out split
    (`test`) asks about every other city of the list, the others about the rest, so the two
    never share a question's text."""
    rng = random.Random(f"weather|{split}|{seed}")
    kinds = sorted(TEMPLATES["templates"])
    known = world.cities[: len(load_cities())]  # a loaded file's added places stay out
    cities = known[0::2] if split == "test" else known[1::2]
    cold = [c for c in cities if c.mean < 12 and c.latitude > 0] or cities
    tasks = []
    for index in range(count):
        kind = kinds[index % len(kinds)]
        home = rng.choice(cities)
        now = _FIRST_DAY + timedelta(days=rng.randrange(_DAYS))
        if kind == "snow_next_days":  # a winter day in a cold city, so snow is likely
            home = rng.choice(cold)
            now = date(rng.randint(2015, 2024), rng.choice([1, 2, 12]), rng.randint(1, 28))
        if now.month == 2 and now.day == 29:
            now -= timedelta(days=1)  # "this day last year" must exist
        other = rng.choice([c for c in cities if c.name != home.name])
        params = {"home": home.name, "city": other.name, "date": (now + timedelta(days=rng.randint(2, 20))).isoformat()}
        goal = TEMPLATES["templates"][kind].format(**params)
        toolkit = toolkit_for(specs, world, now.isoformat(), home.name)
        answer, plan = expert.solve(kind, toolkit, params)
        tasks.append(
            ToolTask(
                task_id=f"{split}-{index}",
                goal=goal,
                subgoals=(answer,),
                answer=answer,
                init_config={"current_date": now.isoformat(), "current_location": home.name},
                goal_type=0,
                kind=kind,
                plan=tuple(plan),
                index=index,
            )
        )
    return tasks
