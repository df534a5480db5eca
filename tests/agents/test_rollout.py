"""The rollout engine against the real server app (in process, over HTTP): episodes end for the
right reasons, unreadable replies are reported without stepping the env, batched policies get
whole rounds at once, and trajectories export to AgentGym's format."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from coevo.client.policies.base import Policy, PolicyRequest, Sampling
from coevo.client.policies.expert import ExpertPolicy
from coevo.client.policies.random_policy import RandomPolicy
from coevo.client.rollout import RolloutEngine
from coevo.client.summary import summarize
from coevo.client.trajectory import EpisodeSpec, Trajectory
from tests.agents.servers import asgi_env_client


class ScriptedPolicy(Policy):
    """Replies from a fixed script per turn (the same for every episode); None abstains."""

    name = "scripted"

    def __init__(self, script: Sequence[str | None], batched: bool = False, max_batch_size: int = 64) -> None:
        super().__init__()
        self.script, self.batched, self.max_batch_size = list(script), batched, max_batch_size
        self.batch_sizes: list[int] = []

    async def act(self, requests: Sequence[PolicyRequest], sampling: Sampling | None = None) -> list[str | None]:
        self.batch_sizes.append(len(requests))
        await asyncio.sleep(0.01)  # a forward pass takes time; meanwhile the others arrive
        turn = [sum(1 for m in r.messages if m["role"] == "assistant") - 1 for r in requests]
        return [self.script[min(t, len(self.script) - 1)] for t in turn]


def _run(policy: Policy, specs: list[EpisodeSpec], **kwargs) -> list[Trajectory]:  # type: ignore[no-untyped-def]
    async def go() -> list[Trajectory]:
        async with asgi_env_client("guess") as client:
            return await RolloutEngine(policy, {"guess": client}, **kwargs).run(specs)

    return asyncio.run(go())


def test_expert_solves_every_episode_and_trajectories_are_complete() -> None:
    specs = [EpisodeSpec("guess", split="test", seed=i) for i in range(12)]
    trajectories = _run(ExpertPolicy(), specs, concurrency=4)
    assert [t.seed for t in trajectories] == list(range(12))  # results in input order
    for t in trajectories:
        assert t.status == "success" and t.end_reason == "env" and t.success and t.reward == 1.0
        assert t.steps == t.rounds == len(t.turns) and t.turns[-1].observation == "correct"
        roles = [m["role"] for m in t.messages]
        assert roles[:3] == ["user", "assistant", "user"]
        assert all(a != b for a, b in zip(roles, roles[1:]))  # strictly alternating
    summary = summarize(trajectories)
    assert summary["success_rate"] == 1.0 and summary["n"] == 12


def test_agentgym_export_marks_only_agent_replies_for_loss() -> None:
    (t,) = _run(ExpertPolicy(), [EpisodeSpec("guess", task_id="train-3")])
    record = t.to_agentgym()
    assert set(record) == {"item_id", "conversations", "reward", "success", "status", "env_version", "score_mode"}
    # Provenance: how it ended, and the env version and scoring mode (the server's options) that scored it.
    assert (record["status"], record["env_version"], record["score_mode"]) == ("success", "1", "")
    assert record["item_id"] == "guess_train-3" and record["success"] == 1 and record["reward"] == 1.0
    conv = record["conversations"]
    assert conv[0]["from"] == "human" and conv[0]["loss"] is None
    assert conv[1] == {"from": "gpt", "loss": False, "value": t.messages[1]["content"]}
    replies = [c for c in conv[2:] if c["from"] == "gpt"]
    assert replies and all(c["loss"] is True for c in replies)
    assert all(c["value"].startswith("Thought: ") and "\nAction: guess " in c["value"] for c in replies)


def test_unreadable_replies_are_reported_and_do_not_step_the_env() -> None:
    policy = ScriptedPolicy(["Thought: I think fifty", "Thought: try\nAction: guess 50", "no idea\nat all"])
    (t,) = _run(policy, [EpisodeSpec("guess", task_id="train-0")], max_rounds=4)
    assert (t.status, t.end_reason) == ("truncated", "max_rounds") and t.rounds == 4
    assert [turn.valid for turn in t.turns] == [False, True, False, False]
    assert t.steps == 1  # only the readable reply reached the server
    feedback = t.messages[4]["content"]
    assert feedback.startswith("Invalid action: no 'Action:' line") and feedback.endswith(
        "Action: guess 50"
    )  # the env's example


def test_abstaining_policy_ends_the_episode() -> None:
    (t,) = _run(ScriptedPolicy([None]), [EpisodeSpec("guess", task_id="train-1")])
    assert (t.status, t.end_reason) == ("policy_error", "abstained") and t.rounds == 0 and not t.success
    assert not t.scored  # an episode without a verdict is never a failure


def test_env_truncation_ends_the_episode_unsuccessfully() -> None:
    (t,) = _run(ScriptedPolicy(["Action: guess 1"]), [EpisodeSpec("guess", task_id="train-5")])
    assert (t.status, t.end_reason) == ("truncated", "env") and t.steps == 12 and not t.success  # GuessEnv.max_steps


def test_server_errors_are_recorded_not_raised() -> None:
    (t,) = _run(ExpertPolicy(), [EpisodeSpec("guess", task_id="no-such-task")])
    assert (t.status, t.end_reason) == ("env_error", "server") and "unknown task" in (t.error or "")


def test_batched_policy_receives_whole_rounds() -> None:
    policy = ScriptedPolicy(["Action: guess 1", "Action: guess 2", "Action: guess 3"], batched=True)
    specs = [EpisodeSpec("guess", task_id=f"train-{i}") for i in range(1, 9)]  # targets are all > 3
    trajectories = _run(policy, specs, max_rounds=3, concurrency=8)
    assert all(t.rounds == 3 for t in trajectories)
    # 8 live episodes x 3 rounds: each round is one call with all 8 conversations
    assert policy.batch_sizes == [8, 8, 8]


def test_batches_respect_the_policys_limit() -> None:
    policy = ScriptedPolicy(["Action: guess 1"], batched=True, max_batch_size=3)
    _run(policy, [EpisodeSpec("guess", task_id=f"train-{i}") for i in range(1, 8)], max_rounds=2, concurrency=7)
    assert max(policy.batch_sizes) == 3 and sum(policy.batch_sizes) == 14


def test_prompt_options_change_what_the_agent_sees() -> None:
    seen: list[str] = []

    class Recorder(ScriptedPolicy):
        async def act(self, requests, sampling=None):  # type: ignore[no-untyped-def]
            seen.extend(r.messages[-1]["content"] for r in requests)
            return ["Action: guess 50" for _ in requests]

    async def go() -> None:
        async with asgi_env_client("alfworld") as client:
            spec = EpisodeSpec("alfworld", split="valid_seen", seed=0)
            await RolloutEngine(Recorder([]), {"alfworld": client}, max_rounds=1).run([spec])
            await RolloutEngine(
                Recorder([]), {"alfworld": client}, max_rounds=1, prompt_options={"show_available_actions": False}
            ).run([spec])

    asyncio.run(go())
    assert "AVAILABLE ACTIONS:" in seen[0] and "AVAILABLE ACTIONS:" not in seen[1]


def test_random_policy_plays_from_available_actions_across_envs() -> None:
    async def go() -> list[Trajectory]:
        async with asgi_env_client("alfworld") as alf, asgi_env_client("guess") as guess:
            engine = RolloutEngine(RandomPolicy(seed=3), {"alfworld": alf, "guess": guess}, max_rounds=5)
            return await engine.run(
                [EpisodeSpec("alfworld", split="valid_seen", seed=1), EpisodeSpec("guess", split="test", seed=1)]
            )

    alf, guess = asyncio.run(go())
    assert alf.rounds == 5 and all(t.valid for t in alf.turns)
    assert alf.task_type is not None  # ALFWorld reports its task type at reset
    assert guess.end_reason == "abstained"  # no action list: the random policy has nothing to pick from


def test_an_episode_ends_after_consecutive_unreadable_replies() -> None:
    """A model stuck in prose must not hold an episode for all of the env's max_steps rounds."""
    stuck = ScriptedPolicy(
        ["no idea\nat all", "Thought: try\nAction: guess 50", "still\nnothing", "none\nhere", "nope\nno"]
    )
    (t,) = _run(stuck, [EpisodeSpec("guess", task_id="train-0")], max_rounds=10)
    assert (t.status, t.end_reason) == ("failure", "invalid_replies") and [turn.valid for turn in t.turns] == [
        False,
        True,
        False,
        False,
        False,
    ]
    assert t.steps == 1  # a readable reply in between resets the count
    (t,) = _run(
        ScriptedPolicy(["no\nidea"] * 6),
        [EpisodeSpec("guess", task_id="train-0")],
        max_rounds=6,
        max_invalid_replies=None,
    )
    assert (t.status, t.end_reason) == ("truncated", "max_rounds") and t.rounds == 6
    with pytest.raises(ValueError, match="max_invalid_replies"):
        _run(stuck, [], max_invalid_replies=0)


def test_an_env_that_reads_replies_whole_is_stepped_once_per_unlabelled_reply() -> None:
    """BFCL decodes every model output once and never asks again: a reply with no "Action:"
    line goes to the env whole, and a single-turn entry ends on it, scored as BFCL scores it."""
    prose = "Sure! To do this you would\nfirst look at the function."

    async def go() -> list[Trajectory]:
        async with asgi_env_client("bfcl") as client:
            specs = [EpisodeSpec("bfcl", split="simple_python", seed=0)]
            return await RolloutEngine(ScriptedPolicy([prose]), {"bfcl": client}).run(specs)

    (t,) = asyncio.run(go())
    assert t.status == "failure" and t.rounds == 1 and t.steps == 1 and not t.success
    (turn,) = t.turns
    assert turn.valid and turn.action == prose
    assert turn.info["error_type"] == "ast_decoder:decoder_failed"


def test_summary_counts_the_actions_the_env_accepted() -> None:
    async def go() -> list[Trajectory]:
        async with asgi_env_client("alfworld") as client:
            spec = EpisodeSpec("alfworld", split="valid_seen", seed=2)
            random = await RolloutEngine(RandomPolicy(seed=0), {"alfworld": client}, max_rounds=4).run([spec])
            scripted = ScriptedPolicy(["Action: go to the moon", "Action: look", "no idea\nat all"])
            wrong = await RolloutEngine(scripted, {"alfworld": client}, max_rounds=4).run([spec])
            return random + wrong

    random, wrong = asyncio.run(go())
    assert summarize([random])["accepted_action_rate"] == 1.0  # picked from the admissible list
    stats = summarize([wrong])
    assert stats["accepted_action_rate"] == 0.5  # "go to the moon" was not admissible, "look" was
    assert stats["invalid_reply_rate"] == 0.5  # two unreadable replies out of four rounds
    assert summarize([])["n"] == 0
