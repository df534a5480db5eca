"""WebShop's fuzzy matcher: thefuzz's `token_set_ratio`, reproduced on rapidfuzz.

thefuzz (WebShop's dependency) drops the characters U+0080..U+00FF ("force_ascii"), applies
rapidfuzz's default processing (lower case, non-alphanumerics to spaces, trim), returns 0 when
either side is then empty, and rounds the score to an int; WebShop counts a match when that int
is > 85. Non-strings (WebShop passes tuples for synthetic goal options) are `str()`-ed first.
"""

from __future__ import annotations

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

_LATIN1 = {i: None for i in range(128, 256)}

MATCH_THRESHOLD = 85


def _process(value: object) -> str:
    return default_process(str(value).translate(_LATIN1))


def token_set_ratio(a: object, b: object) -> int:
    """thefuzz.fuzz.token_set_ratio(a, b) with its defaults."""
    pa, pb = _process(a), _process(b)
    if not pa or not pb:
        return 0
    return int(round(fuzz.token_set_ratio(pa, pb)))


def matches(a: object, b: object) -> bool:
    """WebShop's match rule for attributes and options."""
    return token_set_ratio(a, b) > MATCH_THRESHOLD
