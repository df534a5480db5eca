"""WebShop's Buy Now reward (`engine/goal.py: get_reward`), term by term.

    reward = r_type * (attribute matches + option matches + [price <= price_upper])
                    / (|goal attributes| + |goal options| + 1)

* attributes: a goal attribute matches when it fuzzy-matches (token-set ratio > 85) one of the
  product's attributes, or else occurs verbatim in its lower-cased title, bullet points or
  description;
* options: each goal option matches when it fuzzy-matches one of the purchased option values,
  both after colour normalisation. Human goals list option strings; synthetic goals are a dict
  that WebShop passes as its `(name, value)` items, and so do we (see colors.py, fuzzy.py);
* r_type: 1.0, lowered to 0.5 when neither the query, two or more product-category levels, nor
  > 0.2 of the goal title's nouns match, to 0.1 when under 0.1 of the nouns match, and to 0
  when none do. Nouns come from nouns.py (WebShop used spaCy; see docs/webshop.md), or from a
  spaCy pipeline the user installed (the `spacy_model` option).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from coevo.envs.webshop.colors import normalize_color
from coevo.envs.webshop.fuzzy import matches
from coevo.envs.webshop.nouns import nouns

#: WebShop's price ceiling when a product is too expensive for a "lower than" clause.
NO_PRICE_LIMIT = 1_000_000.0


@dataclass(frozen=True)
class Purchasable:
    """What the reward reads of a product (WebShop's keys in brackets)."""

    title: str  # [Title] == [name]
    query: str  # [query], lower-cased and stripped at load
    product_category: str  # [product_category], levels joined by "›"
    attributes: Sequence[str]  # [Attributes] (["DUMMY_ATTR"] when the product has none)
    bullet_points: Sequence[str]  # [BulletPoints]
    description: str  # [Description]


@dataclass(frozen=True)
class GoalSpec:
    """What the reward reads of a goal."""

    title: str  # [name] of the goal product
    query: str
    product_category: str
    attributes: Sequence[str]
    #: dict for synthetic goals ({option name: value}), list of strings for human goals.
    options: Mapping[str, str] | Sequence[str]
    price_upper: float


NounExtractor = Callable[[str], list[str]]


def type_reward(purchased: Purchasable, goal: GoalSpec, noun_of: NounExtractor = nouns) -> dict[str, Any]:
    query_match = purchased.query == goal.query
    bought_levels = {x.strip() for x in purchased.product_category.split("›")}
    goal_levels = {x.strip() for x in goal.product_category.split("›")}
    category_match = len(bought_levels & goal_levels) >= 2

    bought_nouns = noun_of(purchased.title)
    goal_nouns = noun_of(goal.title)
    shared = len(set(bought_nouns) & set(goal_nouns))
    title_score = 0.2 if not goal_nouns else shared / len(goal_nouns)

    r_type = 1.0
    if not (query_match or category_match or title_score > 0.2):
        r_type = 0.5
    if title_score < 0.1:
        r_type = 0.1
    if title_score == 0.0:
        r_type = 0.0
    return {
        "r_type": r_type,
        "query_match": query_match,
        "category_match": category_match,
        "title_score": title_score,
    }


def attribute_matches(purchased: Purchasable, goal_attributes: Sequence[str]) -> int:
    title = purchased.title.lower()
    bullets = " ".join(purchased.bullet_points).lower()
    description = purchased.description.lower()
    count = 0
    for wanted in goal_attributes:
        if any(matches(have, wanted) for have in purchased.attributes):
            count += 1
        elif wanted in title or wanted in bullets or wanted in description:
            count += 1
    return count


def goal_option_terms(options: Mapping[str, str] | Sequence[str]) -> list[Any]:
    """The goal options as WebShop compares them: a dict's (name, value) items, or the strings."""
    return list(options.items()) if isinstance(options, Mapping) else list(options)


def option_matches(purchased_values: Sequence[str], goal_options: Mapping[str, str] | Sequence[str]) -> int:
    bought = [normalize_color(v) for v in purchased_values]
    count = 0
    for wanted in goal_option_terms(goal_options):
        wanted = normalize_color(wanted)
        if any(matches(have, wanted) for have in bought):
            count += 1
    return count


def reward(
    purchased: Purchasable,
    goal: GoalSpec,
    price: float,
    chosen_options: Mapping[str, str],
    noun_of: NounExtractor = nouns,
) -> tuple[float, dict[str, Any]]:
    """WebShop's total reward for buying `purchased` at `price` with `chosen_options`, and its parts."""
    kind = type_reward(purchased, goal, noun_of)
    r_price = price <= goal.price_upper
    n_attrs = attribute_matches(purchased, goal.attributes)
    n_options = option_matches(list(chosen_options.values()), goal.options)
    denominator = len(goal.attributes) + len(goal.options) + 1
    total = (n_attrs + n_options + int(r_price)) / denominator * kind["r_type"]
    info: dict[str, Any] = {
        **kind,
        "r_att": n_attrs / len(goal.attributes) if goal.attributes else 0.0,
        "w_att": len(goal.attributes) / denominator,
        "r_price": r_price,
        "w_price": 1 / denominator,
    }
    if goal.options:
        info["r_option"] = n_options / len(goal.options)
        info["w_option"] = len(goal.options) / denominator
    return total, info
