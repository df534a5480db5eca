"""Pages in WebShop's text mode. Expected strings were produced by WebShop's own templates
flattened with BeautifulSoup exactly as its text env does (web_agent_text_env.py)."""

from __future__ import annotations

from coevo.envs.webshop import pages
from coevo.envs.webshop.pages import ListedProduct, ShownProduct

SHOE = ShownProduct(
    asin="B0001",
    title="Red Shoe",
    price_tag="$10.0",
    rating="N.A.",
    options={"color": ["red", "navy | blue"], "size": ["7", "8 wide"]},
    description="  A desc. ",
    bullet_points=["b1", " b2 "],
    attributes=["rubber sole"],
    category="fashion",
    query="shoes",
    product_category="a › b",
)


def test_search_page() -> None:
    page = pages.search_page("i want x, and price lower than 40.00 dollars")
    assert (
        page.observation == "WebShop [SEP] Instruction: [SEP] i want x, and price lower than 40.00 dollars [SEP] Search"
    )
    assert page.available_actions() == {"has_search_bar": True, "clickables": ["search"]}


def test_results_page_second_page() -> None:
    listed = [ListedProduct("B0001", "Red Shoe  ", "$10.0 to $20.5"), ListedProduct("B0002", "Blue  Hat", "$3.99")]
    page = pages.results_page("i want x", 2, 50, listed)
    assert page.observation == (
        "Instruction: [SEP] i want x [SEP] Back to Search [SEP] Page 2 (Total results: 50) [SEP] < Prev "
        "[SEP] Next > [SEP] B0001 [SEP] Red Shoe [SEP] $10.0 to $20.5 [SEP] B0002 [SEP] Blue  Hat [SEP] $3.99"
    )
    assert page.available_actions()["clickables"] == ["back to search", "< prev", "next >", "b0001", "b0002"]


def test_results_page_one_has_no_prev_and_always_a_next() -> None:
    page = pages.results_page("i want x", 1, 0, [])
    assert (
        page.observation
        == "Instruction: [SEP] i want x [SEP] Back to Search [SEP] Page 1 (Total results: 0) [SEP] Next >"
    )


def test_item_page() -> None:
    page = pages.item_page("i want x", SHOE)
    assert page.observation == (
        "Instruction: [SEP] i want x [SEP] Back to Search [SEP] < Prev [SEP] color [SEP] red [SEP] navy | blue "
        "[SEP] size [SEP] 7 [SEP] 8 wide [SEP] Red Shoe [SEP] Price: $10.0 [SEP] Rating: N.A. [SEP] Description "
        "[SEP] Features [SEP] Reviews [SEP] Buy Now"
    )
    assert page.available_actions()["clickables"] == [
        "back to search",
        "< prev",
        "description",
        "features",
        "reviews",
        "buy now",
        "red",
        "navy | blue",
        "7",
        "8 wide",
    ]
    assert page.clickables["8 wide"] == "size" and page.clickables["buy now"] is None


def test_repeated_option_value_maps_to_the_last_group() -> None:
    product = ShownProduct(**{**SHOE.__dict__, "options": {"size": ["one"], "pack": ["one", "two"]}})
    page = pages.item_page("x", product)
    assert page.clickables["one"] == "pack" and list(page.clickables).count("one") == 1


def test_sub_pages() -> None:
    head = "Instruction: [SEP] i want x [SEP] Back to Search [SEP] < Prev"
    assert pages.sub_page("i want x", SHOE, "Description").observation == head + " [SEP] A desc."
    assert pages.sub_page("i want x", SHOE, "Features").observation == head + " [SEP] b1 [SEP] b2"
    assert pages.sub_page("i want x", SHOE, "Reviews").observation == head
    empty = ShownProduct(**{**SHOE.__dict__, "description": "", "bullet_points": [""]})
    assert pages.sub_page("i want x", empty, "Description").observation == head  # no text node
    assert pages.sub_page("i want x", empty, "Features").observation == head + " [SEP] "  # a " " node
    assert pages.sub_page("i want x", SHOE, "Features").available_actions()["clickables"] == [
        "back to search",
        "< prev",
    ]


def test_done_page() -> None:
    page = pages.done_page("B0001", {"size": "x-large", "color": "red"}, 0.6666666666666666)
    assert page.observation == (
        "Thank you for shopping with us! [SEP] Your code: [SEP] None [SEP] (Paste it in your MTurk interface.) "
        '[SEP] Purchased [SEP] asin [SEP] B0001 [SEP] options [SEP] {"color": "red", "size": "x-large"} [SEP] '
        "attrs [SEP] None [SEP] category [SEP] None [SEP] query [SEP] None [SEP] product category [SEP] None "
        "[SEP] Target [SEP] asin [SEP] options [SEP] attrs [SEP] price upper [SEP] instuction text [SEP] "
        "category [SEP] product category [SEP] query [SEP] Goal [SEP] None [SEP] Reward [SEP] Your score "
        "(min 0.0, max 1.0) [SEP] 0.6666666666666666 [SEP] Reward Details [SEP] None"
    )
    assert page.available_actions() == {"has_search_bar": False, "clickables": []}
    assert pages.options_json({"size": '8 "wide" é/<b>'}) == '{"size": "8 \\"wide\\" \\u00e9/\\u003cb\\u003e"}'


def test_hidden_attributes_page() -> None:
    page = pages.item_page("i want x", ShownProduct(**{**SHOE.__dict__, "options": {}}), show_attrs=True)
    assert page.observation.endswith("[SEP] Reviews [SEP] Attributes [SEP] Buy Now")
    assert pages.sub_page("i want x", SHOE, "Attributes").observation == (
        "Instruction: [SEP] i want x [SEP] Back to Search [SEP] < Prev [SEP] rubber sole [SEP] fashion [SEP] shoes [SEP] a › b"
    )
