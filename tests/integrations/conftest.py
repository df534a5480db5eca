"""Fixtures for the trainer-integration tests: a tiny model and a live digits-env server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.live import live_server

DIGITS = "tests.integrations.envs:DigitsEnv"


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("transformers")
    from coevo.models.tiny import build_tiny_model

    # A large init spread: the untrained model's replies vary, and so do the env's rewards.
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model", init_std=0.2)


@pytest.fixture
def digits_url() -> Iterator[str]:
    with live_server(DIGITS) as url:
        yield url
