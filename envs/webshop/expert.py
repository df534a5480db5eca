"""WebShop's expert: the privileged next action, for behavioural-cloning data and the contract tests.

It reads the session's goal (the target product and options) and page state: search the goal
product's title, page through the results until its ASIN shows (giving up after the top 50),
open it, click the goal's option values, buy. Synthetic goals name their option values; for
human goals it picks, per goal option, the offered value that best matches it with WebShop's
fuzzy ratio (> 85) after colour normalisation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from coevo.envs.webshop import pages
from coevo.envs.webshop.colors import normalize_color
from coevo.envs.webshop.fuzzy import token_set_ratio
from coevo.envs.webshop.search import TOP_K
from coevo.envs.webshop.tasks import Goal

if TYPE_CHECKING:
    from coevo.envs.webshop.env import WebShopEnv

#: Pages of results the expert looks through before it gives up (the top 50 hold 5).
EXPERT_PAGES = TOP_K // pages.PAGE_SIZE


def next_action(env: WebShopEnv) -> str | None:
    """Search the goal product's title, open it, choose the goal options, buy."""
    if env.goal is None or env.page is None:
        return None
    target = env.goal.product
    if env.where == "index":
        return f"search[{target.title.lower()}]"
    if env.where == "results":
        if target.asin.lower() in env.links:
            return f"click[{target.asin.lower()}]"
        if env.page_no < EXPERT_PAGES and len(env.results) > env.page_no * pages.PAGE_SIZE:
            return f"click[{pages.NEXT_PAGE.lower()}]"
        return None  # not in the top 50: this expert gives up
    if env.where == "sub":
        return f"click[{pages.PREV_PAGE.lower()}]"
    if env.where == "item":
        if env.product_idx != target.idx:
            return f"click[{pages.PREV_PAGE.lower()}]"
        for group, value in options_to_pick(env.goal, target.options).items():
            if env.options.get(group) != value and value in env.page.clickables:
                return f"click[{value}]"
        return f"click[{pages.BUY_NOW.lower()}]"
    return None


def options_to_pick(goal: Goal, offered: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """The option value to pick in each group: the goal's own for synthetic goals; for human
    goals, the offered value that best matches each goal option (WebShop's fuzzy ratio)."""
    wanted = goal.options
    if isinstance(wanted, Mapping):
        return dict(wanted)
    chosen: dict[str, str] = {}
    for text in wanted:
        best = max(
            (
                (token_set_ratio(normalize_color(v), normalize_color(text)), g, v)
                for g, vs in offered.items()
                for v in vs
            ),
            default=None,
        )
        if best is not None and best[0] > 85 and best[1] not in chosen:
            chosen[best[1]] = best[2]
    return chosen
