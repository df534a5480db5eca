"""API-Bank fixtures: the real data folder beside the checkout, or beside the folder holding it
(a worktree of the checkout; skipped when absent), and the generated-data resources every
machine has."""

from __future__ import annotations

from pathlib import Path

import pytest

from coevo.envs.apibank.resources import Resources, build_resources

REPO_ROOT = Path(__file__).resolve().parents[2]
_CANDIDATES = [folder / "shared" / "data" / "api-bank" for folder in REPO_ROOT.parents[:2]]
DATA_DIR = next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0])


@pytest.fixture(scope="session")
def generated() -> Resources:
    return build_resources(None)


@pytest.fixture(scope="session")
def real() -> Resources:
    if not (DATA_DIR / "init_database").is_dir():
        pytest.skip(f"API-Bank data not found at {DATA_DIR}")
    return build_resources(DATA_DIR)
