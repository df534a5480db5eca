"""The generated BIRD set (seed 0, the one the fidelity fixtures were recorded on), built once
per test session into a temporary directory, and the env's shared data over it."""

from __future__ import annotations

from pathlib import Path

import pytest

from coevo.envs.birdsql.env import BirdSqlEnv, Shared
from coevo.envs.birdsql.generator import build_generated


@pytest.fixture(scope="session")
def bird_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_generated(0, out=tmp_path_factory.mktemp("bird") / "seed0")


@pytest.fixture(scope="session")
def shared(bird_dir: Path) -> Shared:
    return BirdSqlEnv.load_shared(data_dir=str(bird_dir))


@pytest.fixture
def env(shared: Shared) -> BirdSqlEnv:
    return BirdSqlEnv(shared=shared)
