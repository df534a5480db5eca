"""Reading the action out of a ReAct reply, tolerantly, and saying exactly why when it cannot.

Small models drift from the format: "ACTION:" on its own line, markdown bold, numbered
"Action 1:", a quoted or back-ticked command, a hallucinated "Observation:" after the action,
or just a bare command. All of those still yield the action. What cannot be read (no action at
all, an empty one) comes back as an error message the engine shows to the agent instead of
stepping the env with garbage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: "Action:", "ACTION :", "**Action**:", "Action 2:", "Action：" at the start of a line.
_ACTION = re.compile(r"^[ \t>*#_-]*action(?:[ \t]*\d+)?[ \t*_]*[:：]", re.IGNORECASE | re.MULTILINE)
#: The same label inside a line ("I am done. Action: look"), tried when no line starts with it.
_ACTION_INLINE = re.compile(r"\baction[ \t*_]*[:：]", re.IGNORECASE)
_THOUGHT = re.compile(r"^[ \t>*#_-]*thought(?:[ \t]*\d+)?[ \t*_]*[:：]", re.IGNORECASE | re.MULTILINE)
#: Where a reply's action ends: the model starts inventing the next turn.
_NEXT_SECTION = re.compile(
    r"^[ \t>*#_-]*(?:observation|thought|action|user|assistant)(?:[ \t]*\d+)?[ \t*_]*[:：]",
    re.IGNORECASE | re.MULTILINE,
)
_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```$", re.DOTALL)
_SPECIAL_TOKEN = re.compile(r"<\|[a-z_]+\|>|</s>|<s>|<eos>|<pad>", re.IGNORECASE)


@dataclass(frozen=True)
class ParsedReply:
    """What a reply said: its thought, its action, or why no action could be read."""

    thought: str
    action: str | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.action is not None


def _strip_wrapping(text: str) -> str:
    text = text.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    # a command wrapped in one pair of quotes or back-ticks: "go to desk 1", `look`
    for left, right in (("`", "`"), ('"', '"'), ("'", "'"), ("**", "**")):
        if len(text) > len(left) + len(right) and text.startswith(left) and text.endswith(right):
            inner = text[len(left) : -len(right)]
            if left not in inner:
                text = inner.strip()
    return text


def _clean_line_action(text: str) -> str:
    line = next((ln for ln in text.splitlines() if ln.strip()), "")
    line = _strip_wrapping(line)
    line = re.sub(r"^[>\-*•]\s*", "", line)  # a bullet or a prompt marker
    line = re.sub(r"\s+", " ", line).strip()
    return line.rstrip(".。!").strip()


def strip_special_tokens(text: str) -> str:
    """The reply without chat-template markers a model may echo ("<|im_end|>", "</s>")."""
    return _SPECIAL_TOKEN.sub("", text or "").strip()


def parse_react(text: str, *, single_line: bool = False) -> ParsedReply:
    """Split a ReAct reply into thought and action.

    `single_line`: the env's actions are one-line commands (the first non-empty line after
    "Action:" is the action, trailing periods dropped); otherwise the action runs to the end of
    the reply or to a hallucinated next section, with code fences removed.
    """
    text = strip_special_tokens(text)
    if not text:
        return ParsedReply("", None, "the reply was empty.")
    action_match = _ACTION.search(text) or _ACTION_INLINE.search(text)
    thought_match = _THOUGHT.search(text)
    thought = ""
    if thought_match and (action_match is None or thought_match.start() < action_match.start()):
        end = action_match.start() if action_match else len(text)
        thought = text[thought_match.end() : end].strip()
    if action_match is None:
        if thought_match is None and len(text.splitlines()) == 1:
            # A bare one-line command with no ReAct labels: take it as the action.
            action = _clean_line_action(text) if single_line else _strip_wrapping(text)
            if action:
                return ParsedReply("", action)
        return ParsedReply(thought, None, "no 'Action:' line was found in your reply.")
    rest = text[action_match.end() :]
    following = _NEXT_SECTION.search(rest)
    if following:
        rest = rest[: following.start()]
    action = _clean_line_action(rest) if single_line else _strip_wrapping(rest)
    if not action:
        return ParsedReply(thought, None, "the action after 'Action:' was empty.")
    return ParsedReply(thought, action)


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip().lower())


def canonical_action(action: str, available: Any) -> str:
    """The env's own spelling of `action` when it matches an available action up to case and
    spacing; otherwise the action unchanged (the env decides what an unknown action does)."""
    if not isinstance(available, Sequence) or isinstance(available, str):
        return action
    wanted = _normal(action)
    for candidate in available:
        if isinstance(candidate, str) and _normal(candidate) == wanted:
            return candidate
    return action
