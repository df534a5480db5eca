"""The reward: normalized exact match, as QA benchmarks score answers, with token F1 alongside."""

from __future__ import annotations

import re
import string
from collections import Counter

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def normalize(text: str) -> str:
    """Lower-case, drop punctuation and articles, squeeze white space (SQuAD's normalization)."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCT)).split())


def exact_match(prediction: str, golds: list[str]) -> float:
    p = normalize(prediction)
    return float(any(p == normalize(g) for g in golds))


def f1(prediction: str, golds: list[str]) -> float:
    best = 0.0
    p = normalize(prediction).split()
    for gold in golds:
        g = normalize(gold).split()
        common = sum((Counter(p) & Counter(g)).values())
        if common:
            precision, recall = common / len(p), common / len(g)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best
