"""The key cap of the one JSON rule (server/json_body.py) is counted on a body's bytes before
any parser builds a dict: the count must be the keys a parser finds, whatever the strings hold
(quotes, backslashes and colons escaped or not), and the cap must refuse one key past it and
accept a body at it even when its strings hold many more colons."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.server.errors import JsonTooManyKeys
from coevo.server.json_body import MAX_JSON_KEYS, decode_json, keys_in_text

#: Text full of what could confuse a count on bytes: quotes, backslashes, colons, escapes.
_tricky = st.lists(st.sampled_from(['"', "\\", ":", "a", "{", "}", "\n", "\u00e9", "\\u0022", '\\"']), max_size=8).map(
    "".join
)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | _tricky,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_tricky, inner, max_size=4),
    max_leaves=25,
)


def _walked_keys(value: Any) -> int:
    if isinstance(value, dict):
        return len(value) + sum(_walked_keys(v) for v in value.values())
    if isinstance(value, list):
        return sum(_walked_keys(v) for v in value)
    return 0


@settings(max_examples=300, deadline=None)
@given(_json, st.sampled_from([None, 0, 2]), st.booleans())
def test_the_count_on_bytes_is_the_parsers_count(value: Any, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only, separators=None if indent else (", ", " : "))
    assert keys_in_text(text.encode()) == _walked_keys(json.loads(text))


def test_the_cap_is_exact_and_counts_keys_not_colons() -> None:
    at_cap = json.dumps({f"k{i}": i for i in range(MAX_JSON_KEYS)}).encode()
    assert len(decode_json(at_cap)) == MAX_JSON_KEYS
    with pytest.raises(JsonTooManyKeys, match=f"{MAX_JSON_KEYS + 1} object keys"):
        decode_json(json.dumps({f"k{i}": i for i in range(MAX_JSON_KEYS + 1)}).encode())
    # Colons (and escaped quotes) inside strings are not keys: 3 keys, 100,000 colons.
    colons = {"action": ':\\":' * 50_000, "id": 1, "x": {}}
    assert decode_json(json.dumps(colons).encode()) == colons
    # Nested and as text (a WebSocket message) alike.
    nested = json.dumps({"items": [{"a": 1, "b": 2}] * (MAX_JSON_KEYS // 2)})
    with pytest.raises(JsonTooManyKeys):
        decode_json(nested)
