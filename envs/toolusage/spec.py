"""Tool descriptions kept as data (envs/<name>/data/tools.json): what the prompt lists, what
`check_valid_actions` answers, and the JSON Schema each tool gets as an MCP tool."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coevo.envs.base import EpisodeTool

#: The prompt's type words -> JSON Schema types.
_JSON_TYPES = {"number": "number", "string": "string", "integer": "integer", "boolean": "boolean", "array": "array"}


@dataclass(frozen=True)
class Param:
    name: str
    type: str | list[str]
    description: str = ""
    #: False for an argument the tool may go without (Sheet's formula tools take a range or a
    #: list; filter_cells' scopes): left out of the MCP schema's `required`.
    required: bool = True

    def schema(self) -> dict[str, Any]:
        kinds = self.type if isinstance(self.type, list) else [self.type]
        types = [_JSON_TYPES[k] for k in kinds if k in _JSON_TYPES]
        prop: dict[str, Any] = {"description": self.description} if self.description else {}
        if len(types) == 1:
            prop["type"] = types[0]
        elif types:
            prop["type"] = types
        return prop


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    params: tuple[Param, ...]
    returns: str
    #: Listed by `check_valid_actions` and the prompt (AgentBoard's raw tool list); a tool the
    #: original dispatches but does not list (Weather's zipcode lookup) is False.
    listed: bool = True

    @property
    def reads(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def prompt_entry(self) -> str:
        """The tool as the prompt describes it (name(args), description, parameters, returns)."""
        lines = [f"Name: {self.name}({', '.join(self.reads)})", f"Description: {self.description}"]
        if self.params:
            lines.append("Parameters:")
            for p in self.params:
                kind = p.type if isinstance(p.type, str) else str(p.type)
                lines.append(f"- {p.name} (Type: {kind}){': ' + p.description if p.description else ''}")
        if self.returns:
            lines.append(f"Returns:\n{self.returns}")
        return "\n".join(lines)

    def episode_tool(self) -> EpisodeTool:
        schema = {
            "type": "object",
            "properties": {p.name: p.schema() for p in self.params},
            "required": [p.name for p in self.params if p.required],
        }
        return EpisodeTool(self.name, self.description, schema)


def load_specs(path: Path) -> tuple[ToolSpec, ...]:
    """The tools of one env, in the prompt's order."""
    rows = json.loads(path.read_text(encoding="utf-8"))
    return tuple(
        ToolSpec(
            name=row["name"],
            description=row["description"],
            params=tuple(Param(**p) for p in row.get("parameters", [])),
            returns=row.get("returns", ""),
            listed=row.get("listed", True),
        )
        for row in rows
    )
