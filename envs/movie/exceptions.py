"""Why a loaded Movie question stays an exception, read from data/exceptions.json: a question of
no known kind by its shape (awards, a film named only by what it is about, ...), a recognised one
whose recorded answer the sandbox cannot hold by the answer's shape (a sentence where a credit
holds a name, a title kept in quotes), else what the tools answer against what the file records.
The reason travels as the task's note; bench/movie.py counts exceptions by it."""

from __future__ import annotations

import json
import re
from typing import Any

from coevo.envs.movie.catalogue import DATA
from coevo.envs.movie.recognise import Question, expand

_DATA: dict[str, Any] = json.loads((DATA / "exceptions.json").read_text(encoding="utf-8"))
_UNRECOGNISED = [(entry["reason"], [expand(p) for p in entry["patterns"]]) for entry in _DATA["unrecognised"]]
_UNHELD = [(entry["reason"], set(entry["rules"]), re.compile(entry["answer"])) for entry in _DATA["unheld"]]
#: Recorded and reached answers are cut to this many characters in a generic reason.
_SHOWN = 80


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}..."


def why(goal: str, question: Question | None, recorded: Any, reached: Any) -> str:
    """The reason a task gets no plan; `reached` is the expert's answer (None where the tools
    gave it none)."""
    if question is None:
        found = next((reason for reason, patterns in _UNRECOGNISED if any(p.search(goal) for p in patterns)), None)
        return found or "the loader does not recognise the question: no kind in data/templates.json matches it"
    if isinstance(recorded, str):
        for reason, rules, answer in _UNHELD:
            if question.rule["name"] in rules and answer.search(recorded):
                return reason
    return f"recognised ({question.kind}), but the tools answer {_shown(reached)} where the file records {_shown(recorded)}"
