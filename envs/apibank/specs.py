"""The API catalogue: every API's name, description and parameter docs, as API-Bank documents them.

These are the interface facts an agent sees (level-1 docs, ToolSearcher results), so they must match
the benchmark text exactly: ToolSearcher results are scored by equality. The descriptions are the
ones the released dialogues were recorded with (the first public API-Bank release); the only
change is the smart-device APIs, whose recorded calls name the device `device_id` (see
docs/apibank.md). The catalogue itself is data/apis.json; behaviour lives in `apis/`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The catalogue as API-Bank documents it: {"level12": [API, ...], "level3": [...]}.
CATALOGUE_FILE = Path(__file__).parent / "data" / "apis.json"


@dataclass(frozen=True)
class ApiSpec:
    """One API's documented interface."""

    name: str
    description: str
    input_parameters: Mapping[str, Mapping[str, str]]
    output_parameters: Mapping[str, Mapping[str, str]]
    #: The initial database table the API reads and writes, if any.
    database: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def needs_token(self) -> bool:
        return "token" in self.input_parameters

    def doc(self) -> dict[str, Any]:
        """The API description as ToolManager.get_api_description shows it (name first)."""
        return {
            "name": self.name,
            "description": self.description,
            "input_parameters": {k: dict(v) for k, v in self.input_parameters.items()},
            "output_parameters": {k: dict(v) for k, v in self.output_parameters.items()},
        }


def _load(level: str) -> tuple[ApiSpec, ...]:
    entries = json.loads(CATALOGUE_FILE.read_text(encoding="utf-8"))[level]
    return tuple(ApiSpec(**entry) for entry in entries)


#: Levels 1 and 2: the 53 APIs of the sandbox (ToolSearcher included).
LEVEL12_SPECS: tuple[ApiSpec, ...] = _load("level12")
#: Level 3: the planning APIs (their own AddMeeting, Calculator, QueryMeeting and ToolSearcher).
LEVEL3_SPECS: tuple[ApiSpec, ...] = _load("level3")
LEVEL12: dict[str, ApiSpec] = {spec.name: spec for spec in LEVEL12_SPECS}
LEVEL3: dict[str, ApiSpec] = {spec.name: spec for spec in LEVEL3_SPECS}


def catalogue(level: int) -> dict[str, ApiSpec]:
    """The APIs an episode of `level` runs against."""
    return LEVEL3 if level == 3 else LEVEL12
