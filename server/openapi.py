"""Exact integer bounds in the OpenAPI description.

FastAPI's OpenAPI models type `minimum`/`maximum` as floats, so `le=2**63 - 1` came out as
9.223372036854776e+18: a float, and a different number (2**63, one past the largest seed). A
client generated from /openapi.json would then send seeds the server refuses. Integer schemas
get their bounds back as integers; the rounded 2**63 is the int64 limit, the only bound that
large a field can have.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from coevo.wire import MAX_INT64

_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def exact_integer_bounds(schema: Any) -> None:
    """Rewrite, in place, every integral float bound of an integer schema as an int."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("type") == "integer":
                for key in _BOUNDS:
                    value = node.get(key)
                    if isinstance(value, float) and value.is_integer():
                        node[key] = MAX_INT64 if value == float(MAX_INT64) else int(value)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def install_exact_openapi(app: FastAPI) -> None:
    """/openapi.json (and /docs) with `exact_integer_bounds` applied, built once."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            exact_integer_bounds(build())
        assert app.openapi_schema is not None
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
