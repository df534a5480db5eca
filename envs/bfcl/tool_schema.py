"""BFCL's function docs as JSON Schema, for structured tool lists (MCP).

BFCL writes parameter types in its own vocabulary (Python names: dict, float, tuple, any); JSON
Schema validators and MCP clients need JSON Schema's. Everything else in a doc is kept.
"""

from __future__ import annotations

import copy
from typing import Any

_TYPES = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "int": "integer",
    "str": "string",
    "bool": "boolean",
    "list": "array",
}


def json_schema(parameters: dict[str, Any]) -> dict[str, Any]:
    """A copy of a BFCL `parameters` object with JSON Schema type names throughout."""
    schema = _convert(copy.deepcopy(parameters))
    schema["type"] = "object"
    schema.setdefault("properties", {})
    return schema


def _convert(node: Any) -> Any:
    if isinstance(node, list):
        return [_convert(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: value for key, value in node.items() if key not in ("type", "properties", "items")}
    kind = node.get("type")
    if isinstance(kind, str) and kind != "any":
        out["type"] = _TYPES.get(kind, kind)
    if isinstance(node.get("properties"), dict):
        out["properties"] = {name: _convert(spec) for name, spec in node["properties"].items()}
    if "items" in node:
        out["items"] = _convert(node["items"])
    return out
