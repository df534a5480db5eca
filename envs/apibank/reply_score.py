"""ROUGE-L F of an AI reply against the recorded one, in either scoring mode.

API-Bank's evaluator scores with the `rouge` package (`Rouge().get_scores(reply, reference)`,
rouge-l `f`, rounded to 4 places; an empty reply scores 0 in its main loop): tokens are split on
whitespace with case and punctuation kept, and text is cut into sentences at every "." for the
summary-level LCS. So "Sure. Let me check." against "Sure, let me check." scores 0.5, where
rouge-score (the corrected mode: lower-cased alphanumeric tokens, one sequence) gives 1.0.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from coevo.envs.apibank.modes import ScoringMode


@lru_cache(maxsize=1)
def _rouge() -> Any:
    from rouge import Rouge

    return Rouge(metrics=["rouge-l"])


@lru_cache(maxsize=1)
def _rouge_score() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"])


def official_rouge_l(reference: str, reply: str, level: int = 1) -> float:
    """The original's figure for `reply`.

    Levels 1-2 (`evaluator.py`): the reply as given, rounded to 4 places. Level 3
    (`lv3_evaluator.py`): every `User:` and `AI:` removed and the rest stripped, unrounded.
    Where the original raises (a reply with no text between its dots, like "...", has no
    sentence; a sentence of over ~1,000 words overflows its recursive LCS) its evaluation run
    stops; here such a reply scores 0.
    """
    if level == 3:
        reply = reply.replace("User:", "").replace("AI:", "").strip()
    if not reply:
        return 0.0
    try:
        scores = _rouge().get_scores(reply, reference)
    except (ValueError, RecursionError):
        return 0.0
    score = float(scores[0]["rouge-l"]["f"])
    return score if level == 3 else round(score, 4)


def corrected_rouge_l(reference: str, reply: str) -> float:
    """rouge-score's ROUGE-L F after dropping a leading `AI:` (0 for an empty reply)."""
    text = reply.strip()
    if text.startswith("AI:"):
        text = text[3:].strip()
    if not text:
        return 0.0
    return float(_rouge_score().score(reference, text)["rougeL"].fmeasure)


def rouge_l(reference: str, reply: str, mode: ScoringMode = "official", level: int = 1) -> float:
    """ROUGE-L F of `reply` against `reference` under `mode`, for a dialogue of `level`."""
    if mode == "official":
        return official_rouge_l(reference, reply, level)
    return corrected_rouge_l(reference, reply)
