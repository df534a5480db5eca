"""API-Bank's API descriptions as structured tools (JSON Schema), for MCP tool lists.

API-Bank types its parameters in Python words ('str', 'list(str)', 'Union[...]'); its calls
carry every argument as text, so a value of another JSON type is written as its text.
"""

from __future__ import annotations

from coevo.envs.apibank.specs import ApiSpec
from coevo.envs.base import EpisodeTool

_TYPES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "list(str)": "array",
    "dict": "object",
    "json": "object",
}


def api_tool(spec: ApiSpec) -> EpisodeTool:
    properties = {}
    for name, parameter in spec.input_parameters.items():
        prop: dict[str, object] = {"description": parameter.get("description", "")}
        kind = _TYPES.get(parameter.get("type", ""))
        if kind is not None:
            prop["type"] = kind
        properties[name] = prop
    schema = {"type": "object", "properties": properties, "required": list(spec.input_parameters)}
    return EpisodeTool(spec.name, spec.description, schema)
