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
- NaN and Infinity, not JSON -> 422 `malformed_json`, like any other syntax error.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import from_json

from coevo.server.errors import InvalidText, JsonTooDeep, MalformedJson

#: Deepest nesting of arrays and objects a body may have: pydantic-core's parser's own limit.
MAX_JSON_DEPTH = 200

#: pydantic-core's words for a \uXXXX escape that is half of a surrogate pair.
_LONE_SURROGATE = ("surrogate", "hex escape")


def decode_json(raw: bytes | str) -> Any:
    """The JSON value of `raw`, or an `ApiError` (422) saying what is wrong with it."""
    try:
        value = from_json(raw, allow_inf_nan=False)
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
