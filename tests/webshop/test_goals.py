"""Goal numbering, option combinations, WebShop's shuffle and splits."""

from __future__ import annotations

import itertools
import random

from coevo.envs.webshop.tasks import combination, combinations, shuffled_order, split_ranges
from coevo.envs.webshop.vocab import CATEGORIES
from coevo.envs.webshop.scoring import option_matches, attribute_matches, Purchasable


def test_combinations_follow_itertools_product_over_sorted_names() -> None:
    options = {"size": ["s", "m", "l"], "color": ["red", "blue"], "pack": ["1"]}
    names = sorted(options)
    expected = [dict(zip(names, combo)) for combo in itertools.product(*(options[n] for n in names))]
    assert combinations(options) == 6
    assert [combination(options, i) for i in range(6)] == expected
    assert combinations({}) == 1 and combination({}, 0) == {}
    assert combinations({"size": []}) == 0


def test_shuffle_is_webshops_seed_233_shuffle() -> None:
    goals = list(range(1234))
    random.seed(233)
    random.shuffle(goals)
    assert shuffled_order(1234).tolist() == goals


def test_splits_are_first_500_next_1000_rest() -> None:
    assert split_ranges(12087) == {"test": (0, 500), "eval": (500, 1500), "train": (1500, 12087)}
    assert split_ranges(700) == {"test": (0, 500), "eval": (500, 700), "train": (700, 700)}


def test_every_generated_option_value_and_attribute_matches_itself() -> None:
    """The generator's words survive WebShop's colour normalisation, so the goal product scores 1."""
    for kinds in CATEGORIES.values():
        for kind in kinds:
            for name, values in kind.options:
                for value in values:
                    shown = value.strip().replace("/", " | ").lower()
                    assert option_matches([shown], {name: shown}) == 1, (name, value)
            product = Purchasable("", "", "", kind.attributes, (), "")
            assert attribute_matches(product, kind.attributes) == len(kind.attributes)
