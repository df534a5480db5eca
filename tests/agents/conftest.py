"""Fixtures for agent tests: tiny random models built once per session (seconds, no downloads)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Llama whose untrained greedy output varies (so generation paths can be compared)."""
    pytest.importorskip("transformers")
    from coevo.models.tiny import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny-model"), init_std=0.5, seed=1)
