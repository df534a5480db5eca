"""Reading a loaded Movie question: which kind it is and what it names (data/templates.json
"recognise": per kind, regular expressions and the rule, envs/movie/rules.py, that builds the
database for it and answers it; the first kind with a matching expression wins).

Placeholders in the expressions: `{movie}` and `{movie2}` (a title, quoted or not, that starts
with a capital or a digit, so "the Marvel Cinematic Universe" is no title), `{person}` (a name of
two or more capitalised words; `{person2}` a second), `{character}` (a role's name; `{character2}`
a second), `{group}` (a group of films named without quotes, "the Marvel Cinematic Universe", "the
Star Wars sequel trilogy": the sandbox serves it as one film of that name, in the `movie` group),
`{about}` (what a film is about, "explores the concept of time", matched against its overview),
`{directors}` (a director, `person`, or "the Russo brothers": the directors of that `surname`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from coevo.envs.movie.catalogue import DATA
from coevo.envs.toolusage.recognise import first_match

_TITLE = r"""(?:the (?:movie|film) )?["'“]?(?P<{name}>[A-Z0-9][^"?“”]*?)["'”]?(?: \(\d{{4}}\))?"""
_PLACEHOLDERS = {
    "{movie}": _TITLE.format(name="movie"),
    "{movie2}": _TITLE.format(name="movie2"),
    "{person}": r"(?P<person>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)+)",
    "{person2}": r"(?P<person2>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)+)",
    "{character}": r"(?P<character>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)*)",
    "{character2}": r"(?P<character2>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)*)",
    "{group}": r"the (?P<movie>(?:[A-Z][\w.'-]* )+(?:Cinematic Universe|(?:sequel |prequel |original )?trilogy"
    r"|(?:film )?series|franchise))",
    "{about}": r"(?P<about>[a-z][^?]*)",
    "{directors}": r"(?:the (?P<surname>[A-Z][\w'-]*) (?:brothers|sisters)|(?P<person>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)+))",
}
KINDS: dict[str, Any] = {
    kind: rule
    for kind, rule in json.loads((DATA / "templates.json").read_text(encoding="utf-8"))["recognise"].items()
    if kind != "about"
}


def expand(pattern: str) -> re.Pattern[str]:
    """A data file's pattern with its placeholders written out (also read by exceptions.py)."""
    for placeholder, expression in _PLACEHOLDERS.items():
        pattern = pattern.replace(placeholder, expression)
    return re.compile(pattern)


_PATTERNS = {kind: [expand(p) for p in rule["patterns"]] for kind, rule in KINDS.items()}


@dataclass(frozen=True)
class Question:
    kind: str
    params: dict[str, str]
    #: The kind's rule (its "name" and options), read by envs/movie/rules.py.
    rule: dict[str, Any]


def recognise(goal: str) -> Question | None:
    found = first_match(_PATTERNS, goal)
    if found is None:
        return None
    kind, params = found
    return Question(kind, params, dict(KINDS[kind]["rule"]))
