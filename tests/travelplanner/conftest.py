"""Fixtures: the hand-made sandbox, and the default generated one (built once per machine)."""

from __future__ import annotations

import pytest

from coevo.envs.travelplanner.database import Sandbox, open_sandbox
from tests.travelplanner.tiny import tiny_sandbox


@pytest.fixture(scope="session")
def tiny() -> Sandbox:
    return tiny_sandbox()


@pytest.fixture(scope="session")
def generated() -> Sandbox:
    return open_sandbox(seed=0)
