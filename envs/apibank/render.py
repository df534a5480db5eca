"""Observation text: instructions, the API docs a level allows, and the dialogue so far.

The dialogue uses API-Bank's test-data layout: `User: ...`, `AI: ...`, and API calls as
`API-Request: [Name(key='value')]->result`, ending with `Generate API Request:` or
`Generate AI Response:` to say which kind of turn is expected.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from coevo.envs.apibank.parsing import PREFIX
from coevo.envs.apibank.specs import ApiSpec

INSTRUCTIONS = {
    1: "Continue the dialogue as the AI assistant, using the APIs described below.",
    2: "Continue the dialogue as the AI assistant. Only ToolSearcher is described below: search "
    "for the tool you need by keywords, then call the tool it returns.",
    3: "Fulfil the user's requirement by making API calls one at a time. Only ToolSearcher is "
    "described below: search for each tool by keywords, then call it; finish with a reply "
    "to the user.",
}
FORMAT = (
    "When an API call is expected, output only API-Request: [ApiName(key1='value1', "
    "key2='value2', ...)]; otherwise output the AI's response to the user. The current year is "
    "2023."
)
ASK_API = "Generate API Request:"
ASK_REPLY = "Generate AI Response:"


def result_text(result: Mapping[str, Any] | None) -> str:
    """What a call returned, as the dialogue shows it after '->'."""
    if not result:
        return "None"
    if result.get("exception") is not None:
        return f"Exception: {result['exception']}"
    return str(result.get("output"))


def header(level: int, docs: Iterable[ApiSpec]) -> str:
    lines = [INSTRUCTIONS[level], FORMAT, "", "API descriptions:"]
    lines += [json.dumps(spec.doc(), ensure_ascii=False) for spec in docs]
    return "\n".join(lines)


def api_line(call_text: str, result: Mapping[str, Any] | None) -> str:
    return f"{PREFIX} {call_text}->{result_text(result)}"
