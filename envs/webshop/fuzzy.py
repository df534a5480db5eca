"""WebShop's fuzzy matcher: `token_set_ratio` of thefuzz 0.19.0, the version WebShop pins.

WebShop installs thefuzz 0.19.0 without python-Levenshtein, so thefuzz scores with the standard
library's `difflib.SequenceMatcher` (Ratcliff-Obershelp), which this module uses too. Its default
processing: drop the characters U+0080..U+00FF ("force_ascii"), replace every non-word character
(`\\W`: `_` is a word character) by a space, lower-case, trim; 0 when either side is then empty.
The token-set score is the best of three ratios between the sorted shared tokens and each side's
sorted shared-then-own tokens, each rounded to an int; WebShop counts a match when it is > 85.
Non-strings (WebShop passes tuples for synthetic goal options) are `str()`-ed first.
(rapidfuzz, used before, splits on `_` and scores by Indel distance: 655 of 3,000 recorded
pairs scored differently, 36 of them on the other side of 85.)
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

_LATIN1 = {i: None for i in range(128, 256)}
_NON_WORD = re.compile(r"\W", re.UNICODE)

MATCH_THRESHOLD = 85


def _process(value: object) -> str:
    return _NON_WORD.sub(" ", str(value).translate(_LATIN1)).lower().strip()


def _ratio(a: str, b: str) -> int:
    if a == b:
        return 100
    if not a or not b:
        return 0
    return int(round(100 * SequenceMatcher(None, a, b).ratio()))


def token_set_ratio(a: object, b: object) -> int:
    """thefuzz.fuzz.token_set_ratio(a, b) of thefuzz 0.19.0, with its defaults."""
    pa, pb = _process(a), _process(b)
    if not pa or not pb:
        return 0
    tokens_a, tokens_b = set(pa.split()), set(pb.split())
    shared = " ".join(sorted(tokens_a & tokens_b))
    with_a = f"{shared} {' '.join(sorted(tokens_a - tokens_b))}".strip()
    with_b = f"{shared} {' '.join(sorted(tokens_b - tokens_a))}".strip()
    return max(_ratio(shared, with_a), _ratio(shared, with_b), _ratio(with_a, with_b))


def matches(a: object, b: object) -> bool:
    """WebShop's match rule for attributes and options."""
    return token_set_ratio(a, b) > MATCH_THRESHOLD
