"""The `coevo` command line as a user runs it: a real process, real servers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def coevo(*args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """A real `coevo` process writing to a pipe, as in `coevo ... | tee log` (rich: 80 columns)."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    return subprocess.run(
        [sys.executable, "-m", "coevo.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=env,
    )


def test_envs_lists_every_builtin_env() -> None:
    from coevo.envs import registry
    from coevo.envs.registry import BUILTIN

    done = coevo("envs", timeout=600)
    assert done.returncode == 0, done.stderr
    for name in BUILTIN:
        assert name in done.stdout
    assert "valid_unseen=" in done.stdout and "simple_python=" in done.stdout  # splits with task counts
    for name in BUILTIN:  # printed to a pipe (80 columns to rich), the entry points stay whole
        assert registry.spec(name).entry_point in done.stdout
    assert "…" not in done.stdout
    quick = coevo("envs", "--no-load")
    assert quick.returncode == 0 and "alfworld" in quick.stdout and "valid_unseen" not in quick.stdout


def test_play_lets_the_expert_finish_an_episode(tmp_path: Path) -> None:
    done = coevo("play", "tests.fixture_env:GuessEnv", "--seed", "5", "--expert", "--option", "unused=1")
    assert done.returncode == 0, done.stderr
    assert "correct" in done.stdout and "done after" in done.stdout and "reward 1" in done.stdout


def test_play_takes_a_persons_typed_actions() -> None:
    typed = "\n".join([":expert", "guess 50", "guess", ":actions", ":quit"]) + "\n"
    done = coevo("play", "tests.fixture_env:GuessEnv", "--task", "train-0", stdin=typed)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "expert: guess 50" in out
    assert "Invalid action" in out  # "guess" without a number is reported, not fatal
    assert "this env lists no actions" in out
    # train-0's target is 1: "guess 50" must have answered "lower"
    assert "lower" in out


def test_play_ends_cleanly_at_end_of_input() -> None:
    """Input that runs out before the episode ends (a piped script, Ctrl-D) leaves like :quit."""
    done = coevo("play", "tests.fixture_env:GuessEnv", "--task", "train-0", stdin="guess 50\n")
    assert done.returncode == 0, done.stderr
    assert "lower" in done.stdout and "Aborted" not in done.stdout + done.stderr
    # It says so, and counts the steps (the prompt names the next one).
    assert "step 1>" in done.stdout and "step 1 · reward 0 · total 0" in done.stdout
    assert "end of input: episode left unfinished after 1 step, total reward 0" in done.stdout


def test_play_shows_how_to_choose_a_task() -> None:
    import re

    listed = coevo("play", "tests.fixture_env:GuessEnv", "--list", "--split", "test", "--limit", "3")
    assert listed.returncode == 0, listed.stderr
    assert "split test: 50 tasks; first 3" in listed.stdout
    assert [line.strip() for line in listed.stdout.splitlines() if line.startswith("  ")] == [
        "test-0",
        "test-1",
        "test-2",
    ]
    assert "coevo play tests.fixture_env:GuessEnv --task ID" in listed.stdout
    # Without --task or --seed, the random seed is shown, and playing that seed plays the same task.
    first = coevo("play", "tests.fixture_env:GuessEnv", stdin="")
    assert first.returncode == 0, first.stderr
    task, seed = re.search(
        r"task (\S+) \(split train; --seed (\d+) replays it", " ".join(first.stdout.split())
    ).groups()
    again = coevo("play", "tests.fixture_env:GuessEnv", "--seed", seed, stdin="")
    assert f"task {task} (split train" in again.stdout
