"""Replays of AgentGym's BabyAI server, recorded once by scripts/fidelity/record_babyai.py (its
own code under its pins: gymnasium 0.29, minigrid 2.3): the item -> level and seed mapping on
the test split's resets, and observations, rewards, scores and done flags step for step on
expert, random and invalid actions, through the same adapter the AgentGym routes use."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coevo.envs.babyai.env import BabyAIEnv

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "agentgym_babyai.json").read_text())
FINISHED = "The task with environment {id} has finished."


@pytest.fixture(scope="module")
def env() -> BabyAIEnv:
    env = BabyAIEnv()
    env.agentgym = True
    return env


def _reset_answer(env: BabyAIEnv, index: int) -> dict[str, Any]:
    adapter = env.agentgym_profile.adapt(env)
    result = env.reset(task_id=adapter.task(index))
    return {"observation": result.observation, **adapter.reset_fields()}


def test_fixture_was_recorded_on_agentgyms_pins() -> None:
    assert FIXTURE["versions"]["gymnasium"].startswith("0.")
    assert FIXTURE["versions"]["minigrid"] < "2.5"
    assert len(FIXTURE["resets"]) == 90


@pytest.mark.parametrize("index", sorted(FIXTURE["resets"], key=int))
def test_reset_matches_the_original(env: BabyAIEnv, index: str) -> None:
    assert _reset_answer(env, int(index)) == FIXTURE["resets"][index]


@pytest.mark.parametrize("run", FIXTURE["runs"], ids=[f"{r['kind']}-{r['data_idx']}" for r in FIXTURE["runs"]])
def test_steps_match_the_original(env: BabyAIEnv, run: dict[str, Any]) -> None:
    assert _reset_answer(env, run["data_idx"]) == run["reset"]
    adapter = env.agentgym_profile.adapt(env)
    for i, (action, expected) in enumerate(zip(run["actions"], run["steps"], strict=True)):
        result = env.step(action)
        got = {"observation": result.observation, "reward": result.reward, **adapter.step_fields(), "done": result.done}
        assert got == pytest.approx(expected), f"step {i}: {action!r}"
    if env.done:  # the original refuses a finished episode's step and observation alike
        assert run["after_end"]["step"] == {"error": FINISHED.format(id=0)}
        assert env.agentgym_profile.finished_error == FINISHED
    else:
        observation = run["after_end"]["observation"]
        result = env.step("turn left")
        assert result.observation == run["after_end"]["step"]["observation"]
        assert adapter.observation() == observation["observation"]


def test_expert_runs_finish_as_recorded() -> None:
    finished = [r for r in FIXTURE["runs"] if r["kind"] == "expert" and r["steps"] and r["steps"][-1]["done"]]
    assert len(finished) >= 25
    assert all(r["steps"][-1]["score"] > 0.5 for r in finished)
