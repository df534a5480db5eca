"""Sheet's reward: the original's cell-match score (`SheetEnv.get_match_score`), the share of
equal cells over the rows and columns both the sheet and the gold answer have (so a sheet that
agrees with the answer where they overlap scores 1.0 even if larger or smaller), kept at its
maximum over the episode. The sheet is what the env reads after a step: a list of rows of texts,
or, before a sheet is open or on an empty one, a text (compared character by character, as
there)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

NOT_OPEN = "Please open a sheet before operating it"


def match_score(sheet: Any, gold: Sequence[Sequence[Any]]) -> float:
    if sheet == NOT_OPEN:
        return 0.0
    rows = min(len(sheet), len(gold))
    cols = min(len(sheet[0]) if sheet else 0, len(gold[0]) if gold else 0)
    total = rows * cols
    matching = sum(1 for i in range(rows) for j in range(cols) if sheet[i][j] == gold[i][j])
    return matching / total if total else 0
