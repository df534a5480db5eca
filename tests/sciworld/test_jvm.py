"""The shared JVM: sessions live in one JVM, and one that is SIGKILLed is restarted and its
sessions rebuilt by replay, their next steps answering as if nothing had happened."""

from __future__ import annotations

import os
import signal

from coevo.envs import registry
from coevo.envs.sciworld.env import SciWorldEnv

ACTIONS = ["open door to kitchen", "go to kitchen", "look around", "pick up thermometer"]


def _env() -> SciWorldEnv:
    env = registry.make("sciworld")
    assert isinstance(env, SciWorldEnv)
    return env


def test_sessions_share_one_jvm_and_survive_its_sigkill() -> None:
    first, second = _env(), _env()
    first.reset(task_id="boil-var0")
    second.reset(task_id="melt-var2")
    assert second.state is not None
    opening = second.state.last.observation  # its "look around" at the reset
    jvm = first.shared.jvm
    assert second.shared.jvm is jvm and jvm.alive()
    for action in ACTIONS[:-1]:
        first.step(action)
    expected = first.step(ACTIONS[-1])  # what the uninterrupted episode answers
    first.reset(task_id="boil-var0")
    for action in ACTIONS[:-1]:
        first.step(action)
    pid, generation = jvm.pid, jvm.generation
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    assert jvm._process is not None and jvm._process.wait(10) == -signal.SIGKILL
    recovered = first.step(ACTIONS[-1])
    assert jvm.generation == generation + 1 and jvm.pid != pid
    assert (recovered.observation, recovered.reward, recovered.done) == (
        expected.observation,
        expected.reward,
        expected.done,
    )
    # The other session lived in the dead JVM too: its next step replays its (empty) history.
    assert second.step("look around").observation == opening
