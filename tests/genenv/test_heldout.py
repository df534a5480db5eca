"""GenEnv's held-out view: a real BFCL task reaches the agent exactly as a simulator task would,
and its reply is scored by the real env's checker."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from coevo.client.heldout import HeldoutEvaluator, HeldoutSplit
from coevo.client.policies.base import Message, Policy, PolicyRequest, Sampling
from coevo.envs import registry
from coevo.simulator.families.function_calling import render_prompt
from coevo.genenv.config import preset
from coevo.genenv.heldout import AgentView, parse_splits, signature
from tests.agents.servers import asgi_env_client

pytest.importorskip("bfcl_eval")

HEAD: tuple[Message, ...] = ({"role": "system", "content": "Answer with one function call."},)


def test_a_bfcl_task_is_shown_as_the_simulator_shows_its_tasks() -> None:
    env = registry.make("bfcl")
    view = AgentView(env="bfcl", instruction="", head=HEAD)
    for split in ("simple_python", "multiple"):
        task_id = env.task_ids(split, 7, 1)[0]
        reset = env.reset(task_id=task_id, seed=0)
        shown = view.render_observation(reset.observation, reset.info, first=True)
        functions = reset.info["functions"]
        assert shown == render_prompt([signature(doc) for doc in functions], reset.info["task"].strip())
        for doc in functions:  # every function, with every parameter it declares
            line = next(ln for ln in shown.splitlines() if ln.startswith(doc["name"] + "("))
            assert line == f"{doc['name']}({', '.join(doc['parameters']['properties'])})"
        assert shown.splitlines()[0] == "Tools:" and shown.splitlines()[-1].startswith("Request: ")
        assert "{" not in shown  # none of BFCL's JSON docs
    assert view.start() == list(HEAD)
    # Without functions (later turns, other envs) the env's own text is shown.
    assert view.render_observation("  Correct.\n", {}, first=False) == "Correct."
    assert view.render_observation("a room", {"task": "find it"}, first=True) == "a room"


def test_the_simulator_renders_its_own_tasks_with_the_same_layout() -> None:
    from coevo.simulator.families.base import get_family
    import random

    family = get_family("function_calling")
    task = family.generate(
        {
            "n_tools": 2,
            "n_args": 1,
            "signature": "full",
            "phrasing": "explicit",
            "numbers": "digits",
            "tool": "get_weather",
        },
        random.Random(3),
    )
    lines = task.prompt.splitlines()
    assert lines[0] == "Tools:" and lines[-2] == "" and lines[-1].startswith("Request: Use get_weather with ")
    assert task.prompt == render_prompt(lines[1:-2], lines[-1][len("Request: ") :])


class _Scripted(Policy):
    """Records what it is shown; answers with the env's gold call (`right`) or a wrong one."""

    name = "scripted"

    def __init__(self, right: bool) -> None:
        super().__init__(Sampling())
        self.right = right
        self.seen: list[list[Message]] = []

    async def act(self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None) -> list[str | None]:
        replies: list[str | None] = []
        for request in requests:
            self.seen.append(list(request.messages))
            assert request.session is not None
            gold = await request.session.expert_action()
            replies.append(gold if self.right else "no_such_function(x=1)")
        return replies


def test_replies_in_the_view_are_scored_by_bfcls_checker_on_fixed_lists() -> None:
    async def run(policy: _Scripted) -> tuple[list[float], dict[str, list[str]]]:
        async with asgi_env_client("bfcl") as client:
            splits = [HeldoutSplit("bfcl", "simple_python", 5), HeldoutSplit("bfcl", "multiple", 3)]
            evaluator = HeldoutEvaluator({"bfcl": [client]}, splits, seed=4, max_rounds=1)
            view = {"bfcl": AgentView(env="bfcl", instruction="", head=HEAD)}
            rows = await evaluator.evaluate(policy, prompts=view)
            return [o for row in rows for o in row.outcomes], evaluator.recorded_lists()

    right, wrong = _Scripted(True), _Scripted(False)
    outcomes, lists = asyncio.run(run(right))
    assert outcomes == [1.0] * 8
    wrong_outcomes, wrong_lists = asyncio.run(run(wrong))
    assert wrong_outcomes == [0.0] * 8 and wrong_lists == lists  # same seed, same tasks
    for messages in right.seen:
        assert messages[: len(HEAD)] == list(HEAD) and len(messages) == len(HEAD) + 1
        assert messages[-1]["role"] == "user" and messages[-1]["content"].startswith("Tools:\n")


def test_heldout_settings_are_checked() -> None:
    assert preset("ci").heldout  # the ci preset scores held-out tasks
    assert preset("paper").env_backend == "llm"  # the paper's environment policy is an LLM
    assert parse_splits(["bfcl:multiple"], 7)[0] == HeldoutSplit("bfcl", "multiple", 7)
    with pytest.raises(ValueError, match="ENV:SPLIT"):
        preset("ci", heldout=("bfcl",))
    with pytest.raises(ValueError, match="heldout_n"):
        preset("ci", heldout_n=-1)
