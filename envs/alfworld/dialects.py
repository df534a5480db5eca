"""The two text dialects ALFWorld game files come in.

A `game.tw-pddl` file carries its own grammar, and ALFWorld changed it once:

- "2.1.1": the game files of ALFWorld <= 0.3 (`json_2.1.1`), the ones ReAct, Reflexion and
  AgentGym transcripts come from: `put X in/on Y` ("You put the X in/on the Y."), arriving
  names the location ("You arrive at loc 12. ..."), no `help`.
- "2.1.2": ALFWorld 0.4's grammar (`alfred.twl2` in the 0.4.2 wheel, `json_2.1.2` game files):
  `move X to Y` ("You move the X to the Y."), arriving names the receptacle ("You arrive at
  fridge 1. ..."), and a `help` command.

Everything else (look, examine, open, take, heat, ...) reads the same in both.
"""

from __future__ import annotations

from dataclasses import dataclass

HELP_TEXT = (
    "Available commands:\n"
    "  look:                             look around your current location\n"
    "  inventory:                        check your current inventory\n"
    "  go to (receptacle):               move to a receptacle\n"
    "  open (receptacle):                open a receptacle\n"
    "  close (receptacle):               close a receptacle\n"
    "  take (object) from (receptacle):  take an object from a receptacle\n"
    "  move (object) to (receptacle):  place an object in or on a receptacle\n"
    "  examine (something):              examine a receptacle or an object\n"
    "  use (object):                     use an object\n"
    "  heat (object) with (receptacle):  heat an object using a receptacle\n"
    "  clean (object) with (receptacle): clean an object using a receptacle\n"
    "  cool (object) with (receptacle):  cool an object using a receptacle\n"
    "  slice (object) with (object):     slice an object using a sharp object\n"
)


@dataclass(frozen=True, slots=True)
class Dialect:
    name: str
    #: Command that puts the held object down, with {o} and {r} for the two names.
    put_command: str
    #: Its feedback, same placeholders.
    put_feedback: str
    #: True: "You arrive at loc 12."; False: "You arrive at fridge 1."
    arrive_names_location: bool
    has_help: bool

    def put(self, obj: str, recep: str) -> str:
        return self.put_command.format(o=obj, r=recep)

    def put_text(self, obj: str, recep: str) -> str:
        return self.put_feedback.format(o=obj, r=recep)


DIALECTS: dict[str, Dialect] = {
    "2.1.2": Dialect("2.1.2", "move {o} to {r}", "You move the {o} to the {r}.", False, True),
    "2.1.1": Dialect("2.1.1", "put {o} in/on {r}", "You put the {o} in/on the {r}.", True, False),
}
DEFAULT_DIALECT = "2.1.2"


class UnknownDialect(ValueError):
    """A grammar that matches neither of ALFWorld's two."""


def dialect(name: str) -> Dialect:
    try:
        return DIALECTS[name]
    except KeyError:
        raise UnknownDialect(f"unknown ALFWorld dialect {name!r}; known: {', '.join(DIALECTS)}") from None


def detect_dialect(grammar: str, domain: str) -> Dialect:
    """Which dialect a game file's grammar (and domain) speaks; refuses anything else."""
    put = (
        "put"
        if 'template :: "put {o} in/on {r}"' in grammar
        else ("move" if 'template :: "move {o} to {r}"' in grammar else None)
    )
    arrive = (
        "loc"
        if '"You arrive at {lend.name}.' in grammar
        else ("recep" if '"You arrive at {r.name}.' in grammar else None)
    )
    has_help = "action help" in grammar and "(:action help" in domain
    for candidate in DIALECTS.values():
        if (
            put == candidate.put_command.split()[0]
            and arrive == ("loc" if candidate.arrive_names_location else "recep")
            and has_help == candidate.has_help
        ):
            return candidate
    raise UnknownDialect(f"grammar matches no known ALFWorld dialect (put={put}, arrive={arrive}, help={has_help})")
