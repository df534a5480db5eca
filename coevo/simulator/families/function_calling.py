"""Function-calling tasks with difficulty knobs (the BFCL/API-Bank skill in one step).

The agent sees a list of tool signatures and a request, and must answer with the one call
that fulfils it. Knobs:

- n_tools:  how many tools are listed (the target plus distractors).
- n_args:   how many arguments the request fixes (the gold parameters).
- signature: "minimal" lists only the parameters the request fixes; "full" lists all of them.
- phrasing: "explicit" names the tool and its parameters; "natural" only describes the intent.
- numbers:  "digits" or "words" ("seven" must become 7).
- tool:     which catalog tool the request targets. Not an easy-to-hard axis, but a real
            source of difficulty for a small agent (some intents and parameter names are far
            easier to map than others), so the environment policy gets to choose it too.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from coevo.simulator.families.base import TaskFamily
from coevo.simulator.task_record import SimTask


@dataclass(frozen=True)
class Param:
    name: str
    #: Values to draw from (ints or strings).
    values: tuple[Any, ...]
    #: How a natural request mentions it; {v} is the value.
    clause: str


@dataclass(frozen=True)
class Tool:
    name: str
    #: The request's verb phrase, e.g. "check the weather".
    intent: str
    params: tuple[Param, ...]

    def signature(self, only: Sequence[str] | None = None) -> str:
        return f"{self.name}({', '.join(_shown_params(self, only))})"


_CITIES = ("Paris", "Lisbon", "Oslo", "Cairo", "Lima", "Seoul", "Denver", "Nairobi", "Dublin", "Hanoi")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

CATALOG: tuple[Tool, ...] = (
    Tool(
        "get_weather",
        "check the weather",
        (
            Param("city", _CITIES, "in {v}"),
            Param("days", tuple(range(1, 8)), "for the next {v} days"),
            Param("unit", ("celsius", "fahrenheit"), "in {v}"),
        ),
    ),
    Tool(
        "set_alarm",
        "set an alarm",
        (
            Param("hour", tuple(range(5, 12)), "for {v} o'clock"),
            Param("minute", tuple(range(5, 60, 5)), "at {v} minutes past"),
            Param("label", ("work", "gym", "medicine", "flight", "school"), "labelled {v}"),
        ),
    ),
    Tool(
        "send_email",
        "send an email",
        (
            Param("to", ("ana@mail.com", "bob@work.org", "li@uni.edu", "sam@home.net"), "to {v}"),
            Param("subject", ("lunch", "invoice", "meeting", "holiday", "report"), "about {v}"),
            Param("priority", tuple(range(1, 6)), "with priority {v}"),
        ),
    ),
    Tool(
        "book_table",
        "book a table",
        (
            Param("restaurant", ("Mirabelle", "Sakura", "El Toro", "Blue Door", "Casa Nova"), "at {v}"),
            Param("people", tuple(range(2, 11)), "for {v} people"),
            Param("day", _DAYS, "on {v}"),
        ),
    ),
    Tool(
        "convert_currency",
        "convert money",
        (
            Param("amount", tuple(range(10, 100, 5)), "an amount of {v}"),
            Param("source", ("USD", "EUR", "GBP", "JPY", "CHF"), "from {v}"),
            Param("target", ("USD", "EUR", "GBP", "JPY", "CHF"), "into {v}"),
        ),
    ),
    Tool(
        "play_music",
        "play some music",
        (
            Param("artist", ("Adele", "Queen", "Shakira", "Miles Davis", "Bach"), "by {v}"),
            Param("volume", tuple(range(1, 11)), "at volume {v}"),
            Param("genre", ("jazz", "rock", "pop", "classical"), "in the {v} style"),
        ),
    ),
    Tool(
        "search_flights",
        "search for flights",
        (
            Param("origin", _CITIES, "from {v}"),
            Param("destination", _CITIES, "to {v}"),
            Param("passengers", tuple(range(1, 7)), "for {v} passengers"),
        ),
    ),
    Tool(
        "add_reminder",
        "add a reminder",
        (
            Param("task", ("call mom", "pay rent", "water plants", "buy milk"), "to {v}"),
            Param("day", _DAYS, "on {v}"),
            Param("hour", tuple(range(6, 12)), "at {v} o'clock"),
        ),
    ),
    Tool(
        "set_thermostat",
        "set the thermostat",
        (
            Param("temperature", tuple(range(16, 27)), "to {v} degrees"),
            Param("room", ("kitchen", "bedroom", "office", "living room"), "in the {v}"),
            Param("fan_speed", tuple(range(1, 6)), "with fan speed {v}"),
        ),
    ),
    Tool(
        "rent_car",
        "rent a car",
        (
            Param("city", _CITIES, "in {v}"),
            Param("days", tuple(range(1, 15)), "for {v} days"),
            Param("category", ("economy", "compact", "suv", "van"), "in the {v} category"),
        ),
    ),
    Tool(
        "order_pizza",
        "order pizza",
        (
            Param("size", ("small", "medium", "large"), "in size {v}"),
            Param("topping", ("mushrooms", "olives", "ham", "pepper"), "with {v}"),
            Param("quantity", tuple(range(1, 6)), "with quantity {v}"),
        ),
    ),
    Tool(
        "create_event",
        "create a calendar event",
        (
            Param("title", ("standup", "dentist", "review", "party"), "called {v}"),
            Param("day", tuple(range(1, 29)), "on day {v} of the month"),
            Param("duration", tuple(range(15, 95, 15)), "lasting {v} minutes"),
        ),
    ),
)

TOOLS_BY_NAME: dict[str, Tool] = {t.name: t for t in CATALOG}

_ONES = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def number_words(n: int) -> str:
    """English words for 0..999."""
    if not 0 <= n < 1000:
        raise ValueError(f"{n} out of range")
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + ("" if ones == 0 else "-" + _ONES[ones])
    hundreds, rest = divmod(n, 100)
    return _ONES[hundreds] + " hundred" + ("" if rest == 0 else " and " + number_words(rest))


def _say(value: Any, numbers: str) -> str:
    if isinstance(value, int) and numbers == "words":
        return number_words(value)
    return str(value)


def _request(tool: Tool, args: dict[str, Any], phrasing: str, numbers: str) -> str:
    if phrasing == "explicit":
        parts = [f"{name} {_say(value, numbers)}" for name, value in args.items()]
        return f"Use {tool.name} with " + ", ".join(parts) + "."
    by_name = {p.name: p for p in tool.params}
    clauses = [by_name[name].clause.format(v=_say(value, numbers)) for name, value in args.items()]
    return f"Please {tool.intent} " + " ".join(clauses) + "."


def _draw_args(tool: Tool, n_args: int, rng: random.Random) -> dict[str, Any]:
    chosen = sorted(rng.sample(range(len(tool.params)), n_args))
    args: dict[str, Any] = {}
    for i in chosen:
        param = tool.params[i]
        value = rng.choice(param.values)
        # Two different currencies / cities where a tool takes a pair.
        while param.name in ("target", "destination") and value in args.values():
            value = rng.choice(param.values)
        args[param.name] = value
    return args


def render_prompt(signatures: Sequence[str], request: str) -> str:
    """The task text: the tool signatures, then the request. Also how a real benchmark's
    function-calling task is shown to an agent trained on these tasks (its held-out evaluation)."""
    return "\n".join(["Tools:", *signatures, "", f"Request: {request}"])


def _shown_params(tool: Tool, only: Sequence[str] | None) -> list[str]:
    return [p.name for p in tool.params if only is None or p.name in only]


class FunctionCallingFamily(TaskFamily):
    name = "function_calling"
    knobs = {
        "n_tools": (1, 2, 4, 8),
        "n_args": (1, 2, 3),
        "signature": ("minimal", "full"),
        "phrasing": ("explicit", "natural"),
        "numbers": ("digits", "words"),
        "tool": tuple(TOOLS_BY_NAME),
    }
    demo_knobs = {
        "n_tools": 2,
        "n_args": 2,
        "signature": "full",
        "phrasing": "natural",
        "numbers": "digits",
        "tool": "add_reminder",
    }

    def _generate(self, knobs: Mapping[str, Any], rng: random.Random) -> SimTask:
        self.check_knobs(knobs)
        target = TOOLS_BY_NAME[knobs["tool"]]
        distractors = rng.sample([t for t in CATALOG if t is not target], knobs["n_tools"] - 1)
        listed = [target, *distractors]
        rng.shuffle(listed)
        args = _draw_args(target, knobs["n_args"], rng)
        only = list(args) if knobs["signature"] == "minimal" else None
        signatures = [t.signature(only if t is target else None) for t in listed]
        return SimTask(
            family=self.name,
            prompt=render_prompt(signatures, _request(target, args, knobs["phrasing"], knobs["numbers"])),
            answer=[{"name": target.name, "arguments": args}],
            checker="tool_call",
            tools=[{"name": t.name, "params": _shown_params(t, only if t is target else None)} for t in listed],
            meta={"knobs": dict(knobs)},
        )

    def combination(self, task: SimTask) -> str | None:
        """The target tool and the request's text, which is its template (phrasing, numbers)
        filled with its arguments: a held-out task's request and gold call never appear in
        training, whatever the seed or the tools listed beside it."""
        request = task.prompt.rsplit("Request: ", 1)[-1]
        return f"{task.answer[0]['name']}|{request}"
