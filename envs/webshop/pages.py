"""WebShop's pages in its text observation mode ("simple" text: visible strings joined by [SEP]).

WebShop renders HTML templates and flattens them with BeautifulSoup: every visible text node,
stripped, joined by " [SEP] ". We build the same node sequence directly. Node rules follow the
HTML parser: an empty value makes no node; a whitespace-only node that contains a newline is
dropped, any other whitespace-only node becomes an empty segment; everything else is stripped.

Clickables follow `get_available_actions`: the lower-cased text of every button and product link
in page order, then every option value; a dict, so a repeated value keeps its first position
and maps to the last option group that offers it (as WebShop's `text_to_clickable`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

SEP = " [SEP] "

SEARCH = "Search"
BACK_TO_SEARCH = "Back to Search"
NEXT_PAGE = "Next >"
PREV_PAGE = "< Prev"
BUY_NOW = "Buy Now"
SUB_PAGES = ("Description", "Features", "Reviews", "Attributes")
#: Products on one results page (WebShop's 10).
PAGE_SIZE = 10


@dataclass
class Page:
    """One rendered page: its observation and what can be clicked on it."""

    observation: str
    has_search_bar: bool
    #: lower-cased clickable text -> option group for option values, None for buttons and links
    clickables: dict[str, str | None] = field(default_factory=dict)

    def available_actions(self) -> dict[str, object]:
        return {"has_search_bar": self.has_search_bar, "clickables": list(self.clickables)}


@dataclass(frozen=True)
class ListedProduct:
    asin: str
    title: str
    price_tag: str


@dataclass(frozen=True)
class ShownProduct:
    """The fields the item page and its sub-pages show."""

    asin: str
    title: str
    price_tag: str
    rating: str
    options: Mapping[str, Sequence[str]]
    description: str
    bullet_points: Sequence[str]
    attributes: Sequence[str]
    category: str
    query: str
    product_category: str


def _segments(nodes: Iterable[str]) -> list[str]:
    out = []
    for node in nodes:
        if not node:
            continue
        stripped = node.strip()
        if stripped:
            out.append(stripped)
        elif "\n" not in node:
            out.append("")
    return out


def _join(nodes: Iterable[str]) -> str:
    return SEP.join(_segments(nodes))


def _header(instruction: str) -> list[str]:
    return ["Instruction:", instruction, BACK_TO_SEARCH]


def _buttons(*labels: str) -> dict[str, str | None]:
    return {label.lower(): None for label in labels}


def search_page(instruction: str) -> Page:
    return Page(_join(["WebShop", "Instruction: ", instruction, SEARCH]), True, _buttons(SEARCH))


def results_page(instruction: str, page: int, total: int, products: Sequence[ListedProduct]) -> Page:
    nodes = _header(instruction) + [f"Page {page} (Total results: {total})"]
    buttons = [BACK_TO_SEARCH]
    if page > 1:
        nodes.append(PREV_PAGE)
        buttons.append(PREV_PAGE)
    nodes.append(NEXT_PAGE)
    buttons.append(NEXT_PAGE)
    clickables = _buttons(*buttons)
    for product in products:
        nodes += [product.asin, product.title, product.price_tag]
        clickables[product.asin.lower()] = None
    return Page(_join(nodes), False, clickables)


def item_page(instruction: str, product: ShownProduct, show_attrs: bool = False) -> Page:
    nodes = _header(instruction) + [PREV_PAGE]
    option_nodes: list[str] = []
    options: dict[str, str] = {}
    for name, values in product.options.items():
        option_nodes.append(name)
        for value in values:
            option_nodes.append(value)
            options[value] = name
    sub_pages = list(SUB_PAGES[:3]) + (["Attributes"] if show_attrs else [])
    nodes += option_nodes + [product.title, f"Price: {product.price_tag}", f"Rating: {product.rating}"]
    nodes += sub_pages + [BUY_NOW]
    clickables = _buttons(BACK_TO_SEARCH, PREV_PAGE, *sub_pages, BUY_NOW)
    for value, name in options.items():
        clickables[value] = name
    return Page(_join(nodes), False, clickables)


def sub_page(instruction: str, product: ShownProduct, which: str) -> Page:
    nodes = _header(instruction) + [PREV_PAGE]
    if which == "Description":
        nodes.append(product.description)
    elif which == "Features":
        nodes += [" " + point for point in product.bullet_points]
    elif which == "Attributes":
        nodes += [" " + attribute for attribute in product.attributes]
        nodes += [product.category, product.query, product.product_category]
    elif which != "Reviews":  # WebShop ships no reviews: the page shows none
        raise ValueError(f"unknown sub-page {which!r}")
    return Page(_join(nodes), False, _buttons(BACK_TO_SEARCH, PREV_PAGE))


def options_json(options: Mapping[str, str]) -> str:
    """Jinja's `tojson` as Flask configures it: sorted keys, ASCII, HTML-safe escapes."""
    text = json.dumps(dict(options), sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("'", "\\u0027")


def done_page(asin: str, options: Mapping[str, str], reward: float) -> Page:
    """The final page as WebShop's text env shows it (its MTurk fields render as "None")."""
    nodes = [
        "Thank you for shopping with us!",
        "Your code: ",
        "None",
        " (Paste it in your MTurk interface.)",
        "Purchased",
        "asin",
        asin,
        "options",
        options_json(options),
        "attrs",
        "None",
        "category",
        "None",
        "query",
        "None",
        "product category",
        "None",
        "Target",
        "asin",
        "options",
        "attrs",
        "price upper",
        "instuction text",  # sic
        "category",
        "product category",
        "query",
        "Goal ",
        "None",
        "Reward",
        "Your score (min 0.0, max 1.0)",
        str(reward),
        "Reward Details ",
        "None",
    ]
    return Page(_join(nodes), False, {})
