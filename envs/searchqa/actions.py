"""Reading a reply as Search-R1 reads it, and the observations it answers with.

Search-R1 (Jin et al. 2025, `search_r1/llm_agent/generation.py`) first cuts a reply after its
first `</search>` (or, when there is none, after its first `</answer>`), then takes the first
`<search>...</search>` or `<answer>...</answer>` of what is left: lower-case tags only, the
closing tag matching the opening one, content stripped. Anything else is an invalid action,
answered with its fixed "My previous action is invalid..." text; the episode goes on.

`lenient` (off by default) is this env's older reading, kept as an option: tags in any case,
and a whole reply of the form `search[...]` / `answer[...]`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

_TAG = re.compile(r"<(search|answer)>(.*?)</\1>", re.DOTALL)
_TAG_ANY_CASE = re.compile(r"<(search|answer)>(.*?)</\1>", re.DOTALL | re.IGNORECASE)
_BRACKET = re.compile(r"^\s*(search|answer)\[(.*)\]\s*$", re.DOTALL | re.IGNORECASE)

INVALID_ACTION = (
    "\nMy previous action is invalid. If I want to search, I should put the query between <search> and "
    "</search>. If I want to give the final answer, I should put the answer between <answer> and </answer>. "
    "Let me try again.\n"
)


class Passage(Protocol):
    title: str
    text: str


def search_r1_question(question: str) -> str:
    """A question as Search-R1's data scripts put it in the prompt: stripped, ending in '?'."""
    question = question.strip()
    return question if question.endswith("?") else question + "?"


def cut_reply(text: str) -> str:
    """The part of a reply Search-R1 keeps: up to its first `</search>`, else its first `</answer>`."""
    for closing in ("</search>", "</answer>"):
        if closing in text:
            return text.split(closing)[0] + closing
    return text


def parse_action(text: str, lenient: bool = False) -> tuple[str, str] | None:
    """("search"|"answer", content) as Search-R1 reads the reply, or None for an invalid action."""
    if lenient:
        m = _TAG_ANY_CASE.search(text) or _BRACKET.match(text)
        return (m.group(1).lower(), m.group(2).strip()) if m else None
    m = _TAG.search(cut_reply(text))
    return (m.group(1), m.group(2).strip()) if m else None


def passage_contents(passage: Passage) -> str:
    """A passage as a FlashRAG corpus row's `contents`: the quoted title line, then the text. A
    `contents` row's own first line is kept as written, also when it is empty (Search-R1 then
    shows `Doc 1(Title: ) ...`)."""
    title_line = getattr(passage, "title_line", None)
    if title_line is None:
        title_line = f'"{passage.title}"'
    return f"{title_line}\n{passage.text}"


def render_passages(passages: Sequence[Passage]) -> str:
    """Search-R1's `_passages2string`: `Doc i(Title: <first line>) <rest>` and a newline per passage."""
    out = ""
    for i, passage in enumerate(passages, 1):
        title, _, text = passage_contents(passage).partition("\n")
        out += f"Doc {i}(Title: {title}) {text}\n"
    return out


def information(passages: Sequence[Passage]) -> str:
    """The observation after a search, as Search-R1 appends it to the context."""
    return f"\n\n<information>{render_passages(passages).strip()}</information>\n\n"
