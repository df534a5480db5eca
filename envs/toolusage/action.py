"""Reading an agent's reply the way AgentGym's tool servers read it.

Two regular expressions do it there. The server (`extract_action_name_and_action_input`) finds
the last line of the reply containing `with Action Input:` and cuts it into the action (what
precedes, an `Action: ` prefix included) and its input (the rest of that line); a reply without
such a last line gets the format-error text. The env (`parse_action`) then reads the rebuilt
line `<action> with Action Input: <input>`: the tool name follows `Action:`, and the input is
evaluated. Here the input is read by `literal.read_literal`, never `eval`; an input it refuses
gets the original's text for an input `eval` cannot read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from coevo.envs.toolusage.literal import NotALiteral, read_literal

#: AgentGym's server-side pattern (`re.search`, no flags: the input runs to the reply's end).
_SERVER = re.compile(r"\s*(.*?)\s*with\s*Action Input:\s*(.*?)$")
#: The env-side pattern (`re.match`, MULTILINE | DOTALL).
_ENV = re.compile(r".*?Action:\s*(.*?)\s*with\s*Action Input:\s*(.*?)$", re.MULTILINE | re.DOTALL)

FORMAT_ERROR = (
    'Format error, please response in the format of  "Action: [your action] with Action Input: [your action input]'
)
INVALID_INPUT = "Parameters in action input are not valid, please change your action input."


class ActionInputError(Exception):
    """The action input is not a literal (the original's `eval` failure, same message)."""

    def __init__(self) -> None:
        super().__init__(INVALID_INPUT)


@dataclass(frozen=True)
class ToolAction:
    """One parsed action: the tool's name and its input as read from the literal."""

    name: str
    params: Any
    #: The line as the env saw it (`<action> with Action Input: <input>`): the end-of-episode
    #: test looks for "finish" anywhere in it, as the original does.
    line: str


def server_line(reply: str) -> str | None:
    """The line AgentGym's server hands its env, or None (it answers FORMAT_ERROR then)."""
    m = _SERVER.search(reply)
    if m is None:
        return None
    return f"{m.group(1)} with Action Input: {m.group(2)}"


def parse_line(line: str) -> ToolAction | None:
    """The tool call in a server line; None where the line names no `Action:` (the original
    then fails to unpack None: see `NO_ACTION_ERROR`). Raises ActionInputError."""
    m = _ENV.match(line)
    if m is None:
        return None
    try:
        params = read_literal(m.group(2))
    except NotALiteral:
        raise ActionInputError from None
    return ToolAction(m.group(1), params, line)


#: What the original's env answers for a line without `Action:` (unpacking None).
NO_ACTION_ERROR = "ERROR | TypeError(cannot unpack non-iterable NoneType object)"


def error_text(exc: BaseException) -> str:
    """The original's observation for an exception a tool call raised."""
    return f"ERROR | {type(exc).__name__}({exc})"
