"""Where coevo keeps what it builds once and reuses: generated corpora, indexes, model checkpoints."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "COEVO_CACHE_DIR"


def cache_dir(*parts: str) -> Path:
    """$COEVO_CACHE_DIR (default ~/.cache/coevo), joined with `parts`; not created here."""
    root = Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "coevo")
    return root.joinpath(*parts)
