"""WebShop's fuzzy matcher against thefuzz 0.19.0 itself (WebShop's pin), on recorded pairs.

tests/webshop/fixtures/thefuzz_0_19_0.json was written once by scripts/fidelity/record_thefuzz.py
in a throwaway interpreter with thefuzz 0.19.0 (on difflib, as WebShop installs it): 3,000
generated attribute/option pairs with `_`, `-`, `/` and other joiners, Latin-1 and other
non-ASCII characters, upper and title case, reordered and dropped words, typos and tuples.
"""

from __future__ import annotations

import json
from pathlib import Path

from coevo.envs.webshop.fuzzy import MATCH_THRESHOLD, matches, token_set_ratio

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "thefuzz_0_19_0.json").read_text())


def _arg(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value


def test_token_set_ratio_is_thefuzz_0_19_0s_on_every_recorded_pair() -> None:
    wrong = [
        (a, b, expected, token_set_ratio(_arg(a), b))
        for a, b, expected in FIXTURE["cases"]
        if token_set_ratio(_arg(a), b) != expected
    ]
    assert wrong == []


def test_the_recorded_pairs_reach_both_sides_of_the_threshold() -> None:
    scores = [expected for _, _, expected in FIXTURE["cases"]]
    assert len(scores) == 3000
    assert sum(s > MATCH_THRESHOLD for s in scores) > 300 and sum(s <= MATCH_THRESHOLD for s in scores) > 300
    assert sum("_" in str(a) + b for a, b, _ in FIXTURE["cases"]) > 300


def test_underscore_is_a_word_character() -> None:
    assert token_set_ratio("travel case", "travel_case") == 55  # thefuzz 0.19.0's figure
    assert not matches("travel case", "travel_case") and matches("Travel Case!", "travel case")
