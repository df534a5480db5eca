"""The privileged next action: search the anchor, read the bridge, search it, read the answer.

The expert knows the question's composition (template and anchor) but not the answer: it has
to retrieve both passages and read them, so its score measures the corpus and the index.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from coevo.envs.searchqa.tasks import TEMPLATES, Question


def read_relation(pattern: str, text: str) -> str | None:
    """The relation a hop's pattern reads off a passage (its group "x"), or None."""
    m = re.search(pattern, text)
    return m.group("x").strip() if m else None


def _read(seen: Mapping[str, str], title: str | None, pattern: str) -> str | None:
    text = seen.get(title) if title else None
    return read_relation(pattern, text) if text else None


def next_action(question: Question, searches: int, seen: Mapping[str, str]) -> str | None:
    """The expert's next reply after `searches` searches that showed the passages in `seen`
    (title -> text); None for a question without a known composition (a user's file)."""
    if question.template is None or question.anchor is None:
        return None
    template = TEMPLATES[question.template]
    if searches == 0:
        return f"<search>{question.anchor}</search>"
    bridge = _read(seen, question.anchor, template.hop1)
    if searches == 1:
        return f"<search>{bridge}</search>" if bridge else "<answer>unknown</answer>"
    answer = _read(seen, bridge, template.hop2) if bridge else None
    return f"<answer>{answer or 'unknown'}</answer>"
