"""The offline noun extractor against WebShop's spaCy-based reference title scores."""

from __future__ import annotations

import pytest

from coevo.envs.webshop.nouns import nouns, tokens
from coevo.envs.webshop.scoring import GoalSpec, Purchasable, type_reward

# (goal title, bought title, WebShop's title_score with spaCy, from its tests/engine/test_goal.py)
WEBSHOP_CASES = [
    (
        "Saireed UL Listed 2 Prong Power Cord for JBL Bar 3.1 Bar 2.1 Channel 4K Ultra HD Soundbar Home Theater System Subwoofer",
        "BRST AC Power Cord Outlet Socket Cable Plug Lead for Panasonic SC-HT830V DVD/VCR Combo Home Theater System",
        0.3,
    ),
    (
        "Saireed UL Listed 2 Prong Power Cord for JBL Bar 3.1 Bar 2.1 Channel 4K Ultra HD Soundbar",
        "BRST AC Power Cord Outlet Socket Cable Plug Lead for Panasonic SC-HT830V DVD/VCR Combo Home Theater System",
        0.15,
    ),
    (
        "Rusticware 921ORB Kitchen and Bath Cabinet Knob",
        "Minkissy 2pcs Stainless Steel Eyebrow Tweezers Blackhead Acne Remover Portable Makeup Tweezers (Silver)",
        0.0,
    ),
]


def _title_score(goal: str, bought: str) -> float:
    blank = dict(query="", product_category="", attributes=())
    return type_reward(
        Purchasable(title=bought, bullet_points=(), description="", **blank),  # type: ignore[arg-type]
        GoalSpec(title=goal, options={}, price_upper=0, **blank),  # type: ignore[arg-type]
    )["title_score"]


@pytest.mark.parametrize("goal,bought,spacy_score", WEBSHOP_CASES)
def test_title_scores_agree_with_webshops_spacy_reference(goal: str, bought: str, spacy_score: float) -> None:
    assert _title_score(goal, bought) == pytest.approx(spacy_score, abs=0.05)


def test_known_difference_is_in_the_same_reward_branch() -> None:
    # spaCy scores this 0.333 (it tags some of "Casual", "Off", "White" as non-nouns); we count
    # 4 of 9 nouns. Both are above 0.2, so r_type is the same.
    goal = "Mens D.O.N. Issue 2 Gca Basketball Sneakers Shoes Casual - Off White"
    bought = "PEAK High Top Mens Basketball Shoes Lou Williams Streetball Master Breathable Non Slip Outdoor Sneakers"
    assert _title_score(goal, bought) == pytest.approx(4 / 9)


def test_nouns_keep_order_and_duplicates_and_skip_numbers_and_function_words() -> None:
    assert nouns("JBL Bar 3.1 Bar 2.1 for the Home") == ["jbl", "bar", "bar", "home"]
    assert nouns("Listed Breathable Outdoor Stainless") == []  # participle and adjective-only words
    assert nouns("Kavora 921ORB Soundbar") == ["kavora", "921orb", "soundbar"]  # unknown words: proper nouns


def test_tokens_split_like_spacy_on_titles() -> None:
    assert tokens("Men's SC-HT830V DVD/VCR (Silver) D.O.N. 3.1") == [
        "men",
        "sc",
        "ht830v",
        "dvd",
        "vcr",
        "silver",
        "d.o.n.",
        "3.1",
    ]


def test_the_lexicon_does_not_drag_spacy_into_servers() -> None:
    """LemmInflect imports spaCy (~250 MB) when installed; the extractor keeps it out."""
    import subprocess
    import sys

    code = (
        "import sys; from coevo.envs.webshop.nouns import nouns; "
        "assert nouns('Kavora Bar') == ['kavora', 'bar']; print('spacy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _tagging_pipeline(folder):  # type: ignore[no-untyped-def]
    """A small real spaCy pipeline on disk: an attribute ruler tags two words NOUN and PROPN."""
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add(patterns=[[{"LOWER": "shoes"}]], attrs={"POS": "NOUN"})
    ruler.add(patterns=[[{"LOWER": "nike"}]], attrs={"POS": "PROPN"})
    nlp.to_disk(folder)
    return folder


def test_spacy_model_option_takes_webshops_tags_from_the_users_pipeline(tmp_path, generated_dir) -> None:  # type: ignore[no-untyped-def]
    from coevo.envs.webshop.env import WebShopEnv
    from coevo.envs.webshop.nouns import SpacyNouns

    model = str(_tagging_pipeline(tmp_path / "pipeline"))
    tagger = SpacyNouns(model)
    assert tagger("Nike red running Shoes") == ["nike", "shoes"]
    goal = GoalSpec("Nike running shoes", "q1", "a › b", [], {}, 100.0)
    bought = Purchasable("red shoes", "q2", "c › d", [], [], "")
    assert type_reward(bought, goal, tagger)["title_score"] == 0.5  # shoes of (nike, shoes)
    assert type_reward(bought, goal)["title_score"] != 0.5  # the lexicon rule counts "running" too
    shared = WebShopEnv.load_shared(data_dir=str(generated_dir), spacy_model=model)
    assert isinstance(shared.noun_of, SpacyNouns)
    with pytest.raises(ValueError, match="cannot load"):
        SpacyNouns(str(tmp_path / "missing"))
