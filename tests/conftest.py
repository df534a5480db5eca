"""Shared fixtures: the fixture env is registered for every test session."""

from __future__ import annotations

from coevo.envs.registry import register

register("guess", "tests.fixture_env:GuessEnv")
