"""One JSON decoder and one text rule for every front: native, AgentGym, OpenEnv, /ws and MCP.

Every body and WebSocket message the server reads goes through `decode_json` (the HTTP fronts
through `BodyLimitMiddleware`, before any route parses the body, so a route's own parser can
never accept what this refuses). It is pydantic-core's parser, strict where Python's `json`
is lax:

- a lone UTF-16 surrogate (`"\\ud800"`) -> 422 `invalid_text`: no store encodes such a
  string, so accepting one would acknowledge a step the store then refuses (bytes that are
  not UTF-8 are not JSON: 422 `malformed_json`);
- U+0000 in any string or key -> 422 `invalid_text`: PostgreSQL text cannot hold it;
- nesting deeper than `MAX_JSON_DEPTH` -> 422 `json_too_deep` (Python's parser recurses until
  the interpreter's limit, and a RecursionError was a 500);
- more than `MAX_JSON_KEYS` object keys in one body -> 422 `json_too_many_keys`, counted on the
  raw bytes before any decoding (`count_keys`): each key costs a dict entry in every parser
  after this one (0.9 MB of small keys took 0.6 s and 26 MB);
- NaN and Infinity, not JSON -> 422 `malformed_json`, like any other syntax error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic_core import from_json
from starlette.requests import Request

from coevo.server.errors import InvalidText, JsonTooDeep, JsonTooManyKeys, MalformedJson

#: Deepest nesting of arrays and objects a body may have: pydantic-core's parser's own limit.
MAX_JSON_DEPTH = 200
#: Most object keys in one body, all levels together (a full batch of 4096 items has 8193).
MAX_JSON_KEYS = 16_384
#: A body this short cannot hold more than MAX_JSON_KEYS keys (each takes at least 4 bytes:
#: `"":0`), so only longer ones are counted.
_COUNT_KEYS_FROM = 4 * MAX_JSON_KEYS
_QUOTE, _COLON = ord('"'), ord(":")

#: pydantic-core's words for a \uXXXX escape that is half of a surrogate pair.
#: Where `BodyLimitMiddleware` leaves the decoded body in the request's state, so a route that
#: reads the JSON value itself does not decode it twice (`request_json`).
DECODED_BODY = "coevo_json_body"

_LONE_SURROGATE = ("surrogate", "hex escape")


def decode_json(raw: bytes | str) -> Any:
    """The JSON value of `raw`, or an `ApiError` (422) saying what is wrong with it."""
    if len(raw) > _COUNT_KEYS_FROM:
        keys = count_keys(raw)
        if keys > MAX_JSON_KEYS:
            raise JsonTooManyKeys(f"the body has {keys} object keys; at most {MAX_JSON_KEYS} are accepted")
    try:
        # No string cache: it doubled the cost of a body of many distinct keys.
        value = from_json(raw, allow_inf_nan=False, cache_strings=False)
    except ValueError as exc:
        reason = str(exc)
        lowered = reason.lower()
        if "recursion limit" in lowered:
            raise JsonTooDeep(f"JSON is nested deeper than {MAX_JSON_DEPTH} levels") from None
        if any(marker in lowered for marker in _LONE_SURROGATE):
            raise InvalidText(
                f"a JSON string holds a lone UTF-16 surrogate, which no store can encode: {reason}"
            ) from None
        raise MalformedJson(f"request body is not valid JSON: {reason}") from None
    # NUL reaches a decoded string only through the escape \u0000 (a raw NUL is a syntax error),
    # so bodies without that escape need no walk.
    needle = b"\\u0000" if isinstance(raw, bytes) else "\\u0000"
    if needle in raw:  # type: ignore[operator]
        check_text(value)
    return value


def count_keys(raw: bytes | str) -> int:
    """The number of object keys in the JSON text `raw`, all levels together, counted on its
    bytes before any parser builds a dict (decoding 0.9 MB of 90,000 small keys took 57 ms on a
    loaded core, and walking the result to count them 39 ms more; this takes a few ms). A text
    with no more colons than MAX_JSON_KEYS gets its colon count, an upper bound that is enough."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    colons = data.count(b":")
    return colons if colons <= MAX_JSON_KEYS else keys_in_text(data)


def keys_in_text(data: bytes) -> int:
    """The object keys of the JSON text `data`: its colons outside strings, since each key is
    followed by exactly one and no other colon is. Strings are found by their quotes once escapes
    are dropped: pairs of backslashes first (left to right, as a parser pairs them), then escaped
    quotes. Text that is not valid JSON gets some count, and fails to decode anyway."""
    if b"\\" in data:  # one byte: a memchr (a search for the pairs took ms among many quotes)
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    octets = np.frombuffer(data, dtype=np.uint8)
    # True from an opening quote up to its closing one: the parity of the quotes so far.
    in_string = np.logical_xor.accumulate(octets == _QUOTE)
    return int(np.count_nonzero((octets == _COLON) & ~in_string))


def check_text(value: Any) -> None:
    """Raise `InvalidText` if any string or key in `value` holds U+0000."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise InvalidText("a JSON string contains U+0000 (NUL), which the store cannot hold")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


async def request_json(request: Request) -> Any:
    """The request's JSON body, as the middleware decoded it (or decoded now); {} when empty."""
    state = request.scope.get("state") or {}
    if DECODED_BODY in state:
        return state[DECODED_BODY]
    raw = await request.body()
    return decode_json(raw) if raw.strip() else {}
