"""WebShop's record formats: price parsing, option values, streaming readers, file lookup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coevo.envs.webshop import records
from coevo.envs.webshop.records import (
    DUMMY_ATTR,
    BadRecord,
    find_file,
    iter_array,
    iter_object,
    normalize_product,
    parse_pricing,
)

RAW = {
    "asin": "B0TEST0001",
    "name": "Kavora Shoe",
    "full_description": "Nice.",
    "small_description": "One bullet",
    "pricing": "$10.99$24.5",
    "customization_options": {"Color": [{"value": " Navy/White ", "image": "u"}], "Size": None},
    "category": "fashion",
    "query": " Men's Shoes ",
    "product_category": "a › b",
    "images": ["u"],
}


def test_pricing_like_webshop() -> None:
    assert parse_pricing("$15.99") == ([15.99], "$15.99")
    assert parse_pricing("$10.00") == ([10.0], "$10.0")
    assert parse_pricing("$10.99$24.50") == ([10.99, 24.5], "$10.99 to $24.5")
    assert parse_pricing("$1,299.00 - $1,499.99") == ([1299.0, 1499.99], "$1299.0 to $1499.99")
    assert parse_pricing("") == ([100.0], "$100.0") and parse_pricing(None) == ([100.0], "$100.0")
    with pytest.raises(BadRecord):
        parse_pricing("$")


def test_normalize_product_follows_load_products() -> None:
    product = normalize_product(
        RAW, {"attributes": ["rubber sole"], "instruction": "Find me shoes", "instruction_attributes": ["rubber sole"]}
    )
    assert product.options == {"color": ["navy | white"]}  # stripped, "/" -> " | ", lower; None groups dropped
    assert product.bullet_points == ["One bullet"] and product.query == "men's shoes"
    assert product.attributes == ["rubber sole"] and product.instruction == "Find me shoes"
    assert normalize_product(RAW, None).attributes == [DUMMY_ATTR]
    assert product.document() == "kavora shoe nice. one bullet color: navy | white"
    with pytest.raises(BadRecord):
        normalize_product({"asin": "B0X"}, None)


def test_streaming_readers_cross_chunk_boundaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(records, "_CHUNK", 7)
    items = [{"asin": f"B{i}", "v": [i, 1.5e3, "x ] , {"], "n": None} for i in range(30)] + [12345678, "s"]
    (tmp_path / "a.json").write_text(json.dumps(items, indent=1))
    assert list(iter_array(tmp_path / "a.json")) == items
    mapping = {f"k{i}": {"attributes": [str(i)] * i} for i in range(25)}
    (tmp_path / "o.json").write_text(json.dumps(mapping))
    assert dict(iter_object(tmp_path / "o.json")) == mapping
    (tmp_path / "e.json").write_text(" [ ] ")
    assert list(iter_array(tmp_path / "e.json")) == []
    (tmp_path / "bad.json").write_text('[{"a": 1} {"b": 2}]')
    with pytest.raises(BadRecord):
        list(iter_array(tmp_path / "bad.json"))


def test_find_file_prefers_the_full_file_then_the_largest(tmp_path: Path) -> None:
    (tmp_path / "items_shuffle_1000.json").write_text("[1, 2, 3]")
    (tmp_path / "items_shuffle_100.json").write_text("[1]")
    assert find_file(tmp_path, "items_shuffle").name == "items_shuffle_1000.json"
    (tmp_path / "items_shuffle.json").write_text("[]")
    assert find_file(tmp_path, "items_shuffle").name == "items_shuffle.json"
    assert find_file(tmp_path, "items_ins_v2", required=False) is None
    with pytest.raises(FileNotFoundError):
        find_file(tmp_path, "items_ins_v2")
