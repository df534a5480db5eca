"""TextCraft against AgentGym's own server code, as recorded once.

scripts/fidelity/record_textcraft.py ran `agentenv_textcraft.TextCraftEnv` (recipe files in
name order, PYTHONHASHSEED=0) on 19 AgentGym indices (both ends, every depth, two wrap-arounds),
each with our expert's commands and two steps after the goal, random commands (often near
misses of the expert's) and a list of malformed ones; the fixture holds its observations,
rewards and done flags. Ours must agree step for step.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coevo.envs.registry import make
from coevo.envs.textcraft.env import TextCraftEnv

EPISODES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "original_episodes.json").read_text(encoding="utf-8")
)["episodes"]


@pytest.fixture(scope="module")
def env() -> TextCraftEnv:
    made = make("textcraft")
    assert isinstance(made, TextCraftEnv)
    return made


@pytest.mark.parametrize("episode", EPISODES, ids=[f"{e['index']}-{e['kind']}" for e in EPISODES])
def test_episode_agrees_with_agentgyms_server_step_for_step(env: TextCraftEnv, episode: dict[str, Any]) -> None:
    # AgentGym's server wraps indices around its 544 tasks (544 and 1000 are recorded); ours
    # refuses them (test_textcraft.py), so the wrapped index names the task here.
    first = env.reset(task_id=env.task_for_index(episode["index"] % 544))
    assert first.observation == episode["observation"]
    for number, step in enumerate(episode["steps"]):
        result = env.step(step["action"], after_done=True)
        got = (result.observation, result.reward, result.done)
        assert got == (step["observation"], float(step["reward"]), step["done"]), (number, step["action"])


def test_the_fixture_covers_every_outcome_the_server_has() -> None:
    texts = [s["observation"] for e in EPISODES for s in e["steps"]]
    for start in (
        "Got ",
        "Crafted ",
        "Inventory: [",
        "Inventory: You are not carrying anything.",
        "Could not find enough items to craft ",
        "Could not find a valid recipe for ItemTagWithCount(",
        "Could not execute ",
        "Wrong item format: ",
    ):
        assert any(t.startswith(start) for t in texts), start
    kinds = {(e["kind"], any(s["done"] for s in e["steps"])) for e in EPISODES}
    assert ("expert", True) in kinds and ("random", True) in kinds and ("invalid", False) in kinds
