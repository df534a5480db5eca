"""`coevo.envs.check_env`: every registered env passes it, and each deliberately broken variant of
the fixture env below fails exactly the one check its flaw breaks, with a message that says what."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from pydantic import ValidationError

from coevo.envs import AgentGymProfile, EnvCheckFailed, check_env, registry
from coevo.envs.base import ResetResult, StepResult
from coevo.envs.checker import CHECKS
from tests.fixture_env import GuessEnv


@pytest.mark.parametrize("name", registry.names())
def test_every_registered_env_passes(name: str) -> None:
    report = check_env(name)
    assert report.ok and set(report.passed) | set(report.skipped) == set(CHECKS), str(report)


def test_a_class_is_checked_as_a_name_is() -> None:
    assert check_env(GuessEnv).passed == check_env("guess").passed == tuple(CHECKS)


class ForgetsTheOffset(GuessEnv):
    """Pages every split from its start, whatever the offset."""

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        return super().task_ids(split, 0, limit)


class IgnoresTheSeed(GuessEnv):
    """Draws the task of a bare seed at random."""

    def reset(self, task_id: str | None = None, seed: int | None = None, split: str | None = None) -> ResetResult:
        return super().reset(task_id, seed if task_id is not None else None, split)


class ForgetfulSnapshot(GuessEnv):
    """Snapshots leave out the actions taken, so a restore lands at the episode's start."""

    def snapshot(self) -> dict[str, Any]:
        return {**super().snapshot(), "actions": []}


class StepsAfterTheEnd(GuessEnv):
    """Takes steps after the episode ended, as if it had not."""

    def step(self, action: str, *, after_done: bool = False) -> StepResult:
        return super().step(action, after_done=True)


class NeverTruncated(GuessEnv):
    """Runs past max_steps: the cap never truncates an episode."""

    def step(self, action: str, *, after_done: bool = False) -> StepResult:
        result = super().step(action, after_done=after_done)
        if result.truncated:
            result.truncated, self.done = False, result.done
        return result


class TrainsOnHeldOut(GuessEnv):
    """Declares its held-out split as the one to train on."""

    train_split = "test"


class MisdeclaredAgentGym(GuessEnv):
    """Its AgentGym profile names a split the env does not have."""

    agentgym_profile = AgentGymProfile(indices=(("train", 0), ("valid", 200)))


class DeclaresRetiredAgentGym(GuessEnv):
    """Declares its AgentGym route style the way envs did before profiles."""

    agentgym_style = "env_idx"


class CrashesOnSnapshot(GuessEnv):
    """Its snapshot is not JSON: a set."""

    def snapshot(self) -> dict[str, Any]:
        return {**super().snapshot(), "seen": set()}


BROKEN = [
    (ForgetsTheOffset, "task_ids", "offset ignored"),
    (IgnoresTheSeed, "seed_determinism", "reset(seed=0)"),
    (ForgetfulSnapshot, "snapshot_restore", "the original is at"),
    (CrashesOnSnapshot, "snapshot_restore", "not JSON-able"),
    (StepsAfterTheEnd, "refusal_after_end", "a step after the episode ended did not raise EpisodeFinished"),
    (NeverTruncated, "step_cap", "step 12 (max_steps) neither ended nor truncated"),
    (TrainsOnHeldOut, "declarations", "train_split 'test' is held out"),
    (DeclaresRetiredAgentGym, "declarations", "agentgym_style (now the profile's style)"),
    (MisdeclaredAgentGym, "agentgym_profile", "indices name split 'valid'"),
]


@pytest.mark.parametrize(("cls", "check", "says"), BROKEN, ids=[b[0].__name__ for b in BROKEN])
def test_a_broken_env_fails_exactly_its_check(cls: type[GuessEnv], check: str, says: str) -> None:
    with pytest.raises(EnvCheckFailed) as caught:
        check_env(cls)
    assert list(caught.value.failures) == [check], str(caught.value)
    assert says in caught.value.failures[check]
    assert f"FAILED {check}: " in str(caught.value)  # the message names the check
    report = check_env(cls, raise_on_failure=False)
    assert not report.ok and set(report.passed) == set(CHECKS) - {check}


def test_options_reach_the_env() -> None:
    """Options are the env's own: a searchqa cap of 1 search gives it 4 steps, which still hold."""
    report = check_env("searchqa", max_searches=1)
    assert report.ok, str(report)


def test_what_is_not_an_env_is_refused() -> None:
    with pytest.raises(TypeError, match="an env name or an Env subclass"):
        check_env(dict)  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="unknown env 'no-such-env'"):
        check_env("no-such-env")


@pytest.mark.parametrize(
    ("fields", "names"),
    [
        ({"indices": (("train", 10), ("test", 0))}, "increasing"),
        ({"indices": (("train", -1),)}, "non-negative"),
        ({"finished_error": "done {session}"}, "only {id}"),
        ({"finished_error": "{id} finished", "steps_after_done": True}, "contradict"),
        ({"style": "env_id"}, "style"),
        ({"hello_world": "hi"}, "hello_world"),
        ({"reads": ("step",)}, "reads"),
        ({"reads": ("filtered/vocab",)}, "reads"),
        ({"reset_index_field": "Seed!"}, "reset_index_field"),
    ],
)
def test_a_contradictory_profile_is_refused_where_it_is_declared(fields: Mapping[str, Any], names: str) -> None:
    with pytest.raises(ValidationError, match=names):
        AgentGymProfile(**fields)
