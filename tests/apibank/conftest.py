"""API-Bank fixtures: the real data folder ($APIBANK_DATA, else shared/data/api-bank beside the
checkout or beside the folder holding it; skipped when absent, saying where to put it), and the
generated-data resources every machine has."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coevo.envs.apibank.resources import Resources, build_resources

REPO_ROOT = Path(__file__).resolve().parents[2]
_CANDIDATES = [folder / "shared" / "data" / "api-bank" for folder in REPO_ROOT.parents[:2]]
DATA_DIR = (
    Path(os.environ["APIBANK_DATA"])
    if os.environ.get("APIBANK_DATA")
    else next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0])
)
#: Why the tests on API-Bank's own release skip, and how a user provides it.
MISSING = (
    f"API-Bank data not found at {DATA_DIR}: these tests run on API-Bank's release (the api-bank folder "
    "of github.com/AlibabaResearch/DAMO-ConvAI, with init_database/ and lv1-lv2-samples/); "
    "set APIBANK_DATA=/path/to/api-bank, or put it at ../shared/data/api-bank beside this checkout"
)


@pytest.fixture(scope="session")
def generated() -> Resources:
    return build_resources(None)


@pytest.fixture(scope="session")
def real() -> Resources:
    if not (DATA_DIR / "init_database").is_dir():
        pytest.skip(MISSING)
    return build_resources(DATA_DIR)
