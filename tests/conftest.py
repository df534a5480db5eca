"""Shared fixtures: the fixture env is registered for every test session; under CI, skips that
mean something is broken fail the run (tests/ci_skips.py)."""

from __future__ import annotations

from coevo.envs.registry import register

pytest_plugins = ["tests.ci_skips"]

register("guess", "tests.fixture_env:GuessEnv")
