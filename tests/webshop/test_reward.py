"""WebShop's Buy Now reward on hand-made cases, term by term (engine/goal.py's formula)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from coevo.envs.webshop.colors import normalize_color
from coevo.envs.webshop.records import DUMMY_ATTR, Product
from coevo.envs.webshop.scoring import (
    NO_PRICE_LIMIT,
    GoalSpec,
    Purchasable,
    attribute_matches,
    option_matches,
    reward,
    type_reward,
)
from coevo.envs.webshop.tasks import price_clause, product_price

SHOE = Purchasable(
    title="Kavora Men's Lightweight Running Shoes",
    query="men's running shoes",
    product_category="Clothing › Men › Shoes › Running",
    attributes=("rubber sole", "lace up", "arch support"),
    bullet_points=("RUBBER SOLE: grips wet roads.", "Knit upper keeps feet cool."),
    description="A cushioned midsole with memory foam for long runs.",
)
GOAL = GoalSpec(
    title=SHOE.title,
    query=SHOE.query,
    product_category=SHOE.product_category,
    attributes=("rubber sole", "lace up"),
    options={"color": "navy blue", "size": "9.5"},
    price_upper=60.0,
)


def test_everything_matching_scores_one() -> None:
    total, info = reward(SHOE, GOAL, 45.99, {"color": "navy blue", "size": "9.5"})
    assert total == 1.0
    assert info["r_type"] == 1.0 and info["r_price"] and info["r_option"] == 1.0


def test_each_term_counts_once_in_the_denominator() -> None:
    # 2 attributes + 2 options + price = 5 terms
    assert reward(SHOE, GOAL, 45.99, {"color": "navy blue", "size": "10"})[0] == pytest.approx(4 / 5)
    assert reward(SHOE, GOAL, 75.00, {"color": "navy blue", "size": "9.5"})[0] == pytest.approx(4 / 5)
    assert reward(SHOE, GOAL, 75.00, {})[0] == pytest.approx(2 / 5)
    no_attrs = replace(SHOE, attributes=(DUMMY_ATTR,), description="", bullet_points=("",))
    assert reward(no_attrs, GOAL, 45.99, {})[0] == pytest.approx(1 / 5)


def test_missing_attributes_are_found_in_title_bullets_or_description() -> None:
    bare = replace(SHOE, attributes=(DUMMY_ATTR,))
    goal = replace(GOAL, attributes=("rubber sole", "memory foam", "lightweight", "waterproof"))
    # bullets ("rubber sole"), description ("memory foam"), title ("lightweight"); not "waterproof"
    assert attribute_matches(bare, goal.attributes) == 3


def test_attributes_match_by_token_set_ratio_above_85() -> None:
    product = replace(SHOE, attributes=("tea tree", "essential oil", "natural ingredients"), description="")
    # WebShop's own cases: "essential oils" ~ "essential oil" (ratio 96); "tea bag" is no "tea tree"
    assert attribute_matches(product, ("tea tree", "essential oils", "natural ingredients")) == 3
    assert attribute_matches(replace(product, attributes=("tea bag",)), ("tea tree",)) == 0


def test_webshop_option_cases() -> None:
    assert option_matches(["pack of 12", "grey", "XL"], ["grey", "XL", "pack of 12"]) == 3
    assert option_matches(["pack of 12", "blue", "XL"], ["grey", "XL", "pack of 12"]) == 2
    assert option_matches(["pack of 12", "powder snow", "XL"], ["cool powder snow", "XL", "pack of 12"]) == 3
    assert option_matches([], ["goal 1", "goal 2"]) == 0


def test_options_are_colour_normalised() -> None:
    assert normalize_color("navy blue") == "blue"  # first listed colour wins
    assert normalize_color("black forest") == "black"
    assert normalize_color("violet lavender") == "lavender"
    assert normalize_color("webshop") == "webshop"
    # a human goal's "dark navy blue" and a bought "light blue" are both "blue"
    assert option_matches(["light blue"], ["dark navy blue"]) == 1
    assert option_matches(["red"], ["navy blue"]) == 0


def test_synthetic_goal_options_compare_as_name_value_pairs() -> None:
    # WebShop passes a dict goal's items(): ("color", "dark gray") is no colour word, so it is
    # compared whole as "color dark gray", which contains a bought "gray"; the same option as a
    # human goal's string normalises to "dark" ("dark" is listed before "gray") and does not.
    assert option_matches(["gray"], {"color": "dark gray"}) == 1
    assert option_matches(["gray"], ["dark gray"]) == 0
    # a token-set ratio is 100 whenever one side's words contain the other's
    assert option_matches(["large"], {"size": "x-large"}) == 1
    assert option_matches(["small"], {"size": "x-large"}) == 0
    # a value that is exactly a colour word is normalised inside the pair too
    assert option_matches(["dark gray"], {"color": "gray"}) == 0
    assert option_matches(["gray"], {"color": "gray"}) == 1


def test_r_type_branches() -> None:
    other = replace(SHOE, query="other", product_category="A › B › C")
    assert type_reward(SHOE, GOAL)["r_type"] == 1.0
    # no query or category match, but > 0.2 of the goal title's nouns shared
    same_title = type_reward(other, GOAL)
    assert same_title["title_score"] == 1.0 and same_title["r_type"] == 1.0
    # 1 of 6 goal nouns (kavora, men, running, shoes + ...) shared: 0.1 <= score <= 0.2 -> 0.5
    half = replace(GOAL, title="Kavora Trail Boots Hiking Gear Pack Straps")
    info = type_reward(replace(other, title="Kavora Lamp"), half)
    assert 0.1 <= info["title_score"] <= 0.2 and info["r_type"] == 0.5
    # under 0.1 of the nouns shared -> 0.1
    many = replace(GOAL, title="Kavora Alpha Bravo Charlie Delta Echo Foxtrot Golf Hotel India Juliet Kilo")
    info = type_reward(replace(other, title="Kavora Lamp"), many)
    assert 0 < info["title_score"] < 0.1 and info["r_type"] == 0.1
    # no noun shared -> 0, whatever else matches
    info = type_reward(replace(SHOE, title="Zebra Lamp"), GOAL)
    assert info["query_match"] and info["title_score"] == 0.0 and info["r_type"] == 0.0
    # category match needs two shared levels, in any order
    assert type_reward(replace(other, product_category="Shoes › Men"), GOAL)["category_match"]
    assert not type_reward(replace(other, product_category="Shoes › Women"), GOAL)["category_match"]


def test_r_type_scales_the_whole_reward() -> None:
    # WebShop's test_get_reward: 2/3 attribute terms fail, r_type 0.5 -> 0.2857
    goal = GoalSpec(
        title="Saireed UL Listed 2 Prong Power Cord for JBL Bar 3.1 Bar 2.1 Channel 4K Ultra HD Soundbar",
        query="Query 1",
        product_category="a › b › c",
        attributes=("tea tree", "essential oils", "natural ingredients"),
        options={"color": "grey", "size": "XL", "amount": "pack of 12"},
        price_upper=40.0,
    )
    bought = Purchasable(
        title="",
        query="Query 2",
        product_category="a › d › e",
        attributes=(),
        bullet_points="This shampoo has essential oils and smells like lemons",  # type: ignore[arg-type]
        description="Best shampoo on the market, made with natural ingredients",
    )
    bought = replace(
        bought,
        title="BRST AC Power Cord Outlet Socket Cable Plug Lead for Panasonic SC-HT830V DVD/VCR Combo Home Theater System",
    )
    total, info = reward(bought, goal, 35, {"color": "grey", "size": "XL"})
    assert info["r_type"] == 0.5
    assert total == pytest.approx(0.2857, abs=1e-3)


def test_range_prices_use_a_seeded_draw_inside_the_range() -> None:
    product = Product("B0TEST", "t", "d", [], [10.0, 30.0], "$10.0 to $30.0", {}, [], "c", "q", "a › b")
    prices = {product_price(product, seed) for seed in range(20)}
    assert all(10.0 <= p <= 30.0 for p in prices) and len(prices) > 1
    assert product_price(product, 3) == product_price(product, 3)
    single = replace(product, pricing=[12.5])
    assert product_price(single, 3) == 12.5
    goal = replace(GOAL, price_upper=20.0)
    assert reward(SHOE, goal, 19.99, {})[1]["r_price"] and not reward(SHOE, goal, 20.01, {})[1]["r_price"]


def test_price_ceiling_is_webshops() -> None:
    rng = random.Random(0)
    for price in (0.5, 9.99, 10.0, 45.3, 969.0):
        upper, text = price_clause(price, rng)
        above = [10.0 * i for i in range(1, 100) if 10.0 * i > price][:4]
        assert upper in above[1:] and text == f", and price lower than {upper:.2f} dollars"
    assert price_clause(985.0, rng) == (NO_PRICE_LIMIT, "")  # only 990 is above: no clause
