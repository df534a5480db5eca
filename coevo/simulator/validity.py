"""The validity gate: a generated task is served only if it parses and its checker runs.

"Runs" means more than "does not crash": the gold answer, written out as an expert would,
must score 1, and an empty answer must not. Invalid generations are dropped and counted.
"""

from __future__ import annotations

import re
from typing import Any

from coevo.simulator.expert import gold_answer_text
from coevo.simulator.scoring import score
from coevo.simulator.task_record import CHECKERS, SimTask, unknown_parameters

MAX_PROMPT_CHARS = 12_000
MAX_ANSWER_CHARS = 2_000
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")
_JSON_SCALARS = (str, int, float, bool, type(None))


class InvalidTask(ValueError):
    """Why a generation was rejected (the message is recorded)."""


def _json_literal(value: Any, depth: int = 0) -> bool:
    if depth > 6:
        return False
    if isinstance(value, _JSON_SCALARS):
        return not (isinstance(value, float) and value != value)  # NaN never equals itself
    if isinstance(value, list):
        return all(_json_literal(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_literal(v, depth + 1) for k, v in value.items())
    return False


def _check_calls(task: SimTask) -> None:
    if not isinstance(task.answer, list) or not task.answer:
        raise InvalidTask("a tool-call task needs a non-empty list of gold calls")
    schemas = {t.get("name"): t for t in task.tools or ()}
    for call in task.answer:
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise InvalidTask("every gold call needs a name")
        if not _IDENT.match(call["name"]):
            raise InvalidTask(f"gold call name {call['name']!r} is not an identifier")
        args = call.get("arguments")
        if not isinstance(args, dict) or not all(_IDENT.match(k) for k in args):
            raise InvalidTask(f"gold call {call['name']} needs keyword arguments")
        if not _json_literal(args):
            raise InvalidTask(f"gold call {call['name']} has non-literal arguments")
        if task.tools is not None:
            schema = schemas.get(call["name"])
            if schema is None:
                raise InvalidTask(f"gold call {call['name']} is not among the task's tools")
            unknown = unknown_parameters(schema, args)
            if unknown:
                raise InvalidTask(f"gold call {call['name']} uses unknown parameters {sorted(unknown)}")


def check(task: SimTask) -> None:
    """Raise InvalidTask unless the task is servable."""
    if task.checker not in CHECKERS:
        raise InvalidTask(f"unknown checker {task.checker!r}")
    if not isinstance(task.prompt, str) or not task.prompt.strip():
        raise InvalidTask("empty prompt")
    if len(task.prompt) > MAX_PROMPT_CHARS:
        raise InvalidTask(f"prompt longer than {MAX_PROMPT_CHARS} characters")
    if task.checker == "tool_call":
        _check_calls(task)
    else:
        if not isinstance(task.answer, list) or not task.answer:
            raise InvalidTask("an answer list is needed")
        for ref in task.answer:
            if not isinstance(ref, str) or not ref.strip():
                raise InvalidTask("every accepted answer must be a non-empty string")
            if len(ref) > MAX_ANSWER_CHARS:
                raise InvalidTask("answer too long")
    if task.choices is not None:
        if not isinstance(task.choices, list) or not all(isinstance(c, str) for c in task.choices):
            raise InvalidTask("choices must be a list of strings")
        if task.checker == "exact" and not any(a in task.choices for a in task.answer):
            raise InvalidTask("no accepted answer is among the task's choices")
    gold = gold_answer_text(task)
    try:
        gold_score, empty_score = score(task, gold), score(task, "")
    except Exception as exc:  # a checker that crashes on its own answer is a broken task
        raise InvalidTask(f"checker failed: {type(exc).__name__}: {exc}") from exc
    if gold_score < 1.0:
        raise InvalidTask(f"the gold answer scores {gold_score:.2f}, not 1")
    if empty_score >= 1.0:
        raise InvalidTask("an empty answer already scores 1")


def is_valid(task: SimTask) -> bool:
    try:
        check(task)
    except InvalidTask:
        return False
    return True
