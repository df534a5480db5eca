"""TravelPlanner's tools as structured tools (MCP), from data/tools.json.

A call becomes the action the ReAct agent writes, `Name[arg1, arg2, ...]`, arguments in the
order of the tool's properties; a plan given as JSON is written as JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

from coevo.envs.base import EpisodeTool, UnknownTool


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, Any]:
    text = resources.files("coevo.envs.travelplanner").joinpath("data/tools.json").read_text("utf-8")
    return json.loads(text)


def tools(mode: str) -> list[EpisodeTool]:
    """The tools a `mode` episode offers (sole-planning offers only the Planner)."""
    data = _catalogue()
    allowed = set(data["sole_planning"]) if mode == "sole-planning" else None
    return [
        EpisodeTool(t["name"], t["description"], t["parameters"])
        for t in data["tools"]
        if allowed is None or t["name"] in allowed
    ]


def action(mode: str, name: str, arguments: Mapping[str, Any]) -> str:
    tool = next((t for t in tools(mode) if t.name == name), None)
    if tool is None:
        raise UnknownTool(f"no tool {name!r}; tools: {[t.name for t in tools(mode)]}")
    values = []
    for key in tool.parameters["properties"]:
        if key not in arguments:
            raise UnknownTool(f"{name} needs the argument {key!r}")
        value = arguments[key]
        values.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return f"{name}[{', '.join(values)}]"
