"""Perturbed answers for BFCL entries: the expert's answer, then systematic edits of it.

Each perturbation returns a list of calls in BFCL's decoded form ({name: {param: value}}) or
None when it does not apply to the entry. Some edits keep the answer correct (another allowed
value, a string written differently, int for float, calls reordered in parallel categories) and
most break it; the tests never assume which, they compare verdicts, except for the five
`CORRUPTIONS`, which are built to be wrong.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from coevo.envs.bfcl.calls import decode_reply
from coevo.envs.bfcl.scoring import OPTIONAL
from coevo.envs.bfcl.tasks import Entry, Language
from coevo.envs.bfcl.expert import single_turn_answer

Answer = list[dict[str, dict[str, Any]]]
Perturbation = Callable[[Entry, Answer, random.Random], Answer | None]


def expert_answer(entry: Entry) -> Answer:
    text = single_turn_answer(entry.functions, entry.answer or [], entry.language)
    return [c.as_bfcl() for c in decode_reply(text, entry.language).calls]


def _doc(entry: Entry, name: str) -> dict[str, Any] | None:
    return next((d for d in entry.functions if d["name"] == name), None)


def _possible(entry: Entry, name: str, param: str) -> list[Any]:
    for expected in entry.answer or []:
        if name in expected and param in expected[name]:
            values = expected[name][param]
            return values if isinstance(values, list) else [values]
    return []


def _pick_param(answer: Answer, rng: random.Random, want: Callable[[str, Any], bool] | None = None):
    choices = [
        (i, name, param)
        for i, call in enumerate(answer)
        for name, params in call.items()
        for param, value in params.items()
        if want is None or want(param, value)
    ]
    return rng.choice(choices) if choices else None


def _set(answer: Answer, i: int, name: str, param: str, value: Any) -> Answer:
    out = copy.deepcopy(answer)
    out[i][name][param] = value
    return out


# --------------------------------------------------------------------------- value edits
def _wrong_python_value(value: Any, possible: list[Any]) -> Any:
    if isinstance(value, bool):
        candidate: Any = not value
    elif isinstance(value, int):
        candidate = value + 1_000_003
    elif isinstance(value, float):
        candidate = value + 1000.25
    elif isinstance(value, str):
        candidate = "zq" + value + "qz"
    elif isinstance(value, list):
        candidate = [*value, value[0] if value else "zz"]
    elif isinstance(value, dict):
        if not value:
            return {"zz": 1}
        key = next(iter(value))
        candidate = {**value, key: _wrong_python_value(value[key], [])}
    else:
        return None
    return None if candidate in possible else candidate


def _wrong_source_value(text: str) -> str:
    """A Java/JavaScript source text that reads as a different value."""
    digits = [i for i, ch in enumerate(text) if ch.isdigit()]
    if digits:
        i = digits[-1]
        return text[:i] + str((int(text[i]) + 7) % 10) + "9" + text[i + 1 :]
    if text in ("true", "false"):
        return "false" if text == "true" else "true"
    return "zq" + text


def _wrong_type(value: Any, language: Language) -> Any:
    if language is not Language.PYTHON:
        return 7 if not isinstance(value, int) else [value]
    if isinstance(value, bool):
        return int(value) + 2
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return str(value)
    if isinstance(value, dict):
        return list(value.items())
    return "zz"


def _string_variant(value: str, rng: random.Random) -> str:
    pick = rng.randrange(4)
    if pick == 0:
        return value.upper()
    if pick == 1:
        return value.replace(" ", "")
    if pick == 2:
        return value.replace(" ", "-").replace(",", "")
    return value.replace("'", '"')


# --------------------------------------------------------------------------- perturbations
def p_expert(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    return answer


def p_wrong_name(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    if not answer:
        return None
    out = copy.deepcopy(answer)
    i = rng.randrange(len(out))
    ((name, params),) = out[i].items()
    out[i] = {name + "_v2": params}
    return out


def p_drop_required(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    def required(i: int, name: str, param: str) -> bool:
        doc = _doc(entry, name)
        return bool(doc) and param in doc["parameters"]["required"]

    choices = [
        (i, name, param)
        for i, call in enumerate(answer)
        for name, params in call.items()
        for param in params
        if required(i, name, param)
    ]
    if not choices:
        return None
    i, name, param = rng.choice(choices)
    out = copy.deepcopy(answer)
    del out[i][name][param]
    return out


def p_drop_any(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    found = _pick_param(answer, rng)
    if found is None:
        return None
    i, name, param = found
    out = copy.deepcopy(answer)
    del out[i][name][param]
    return out


def p_add_documented(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    """Add a documented parameter the answer left out, with an allowed value if there is one."""
    options = []
    for i, call in enumerate(answer):
        ((name, params),) = call.items()
        doc = _doc(entry, name)
        if doc:
            options += [(i, name, p) for p in doc["parameters"]["properties"] if p not in params]
    if not options:
        return None
    i, name, param = rng.choice(options)
    allowed = [v for v in _possible(entry, name, param) if v != OPTIONAL]
    if allowed and entry.language is Language.PYTHON:
        value: Any = allowed[0]
    else:
        value = rng.choice(["default", 1, True, 2.5]) if entry.language is Language.PYTHON else "1"
    return _set(answer, i, name, param, value)


def p_unexpected(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    if not answer:
        return None
    i = rng.randrange(len(answer))
    return _set(answer, i, next(iter(answer[i])), "not_a_param", 1)


def p_alternative(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    """Another allowed value (should stay correct)."""
    if entry.language is not Language.PYTHON:
        return None
    choices = []
    for i, call in enumerate(answer):
        ((name, params),) = call.items()
        for param, value in params.items():
            others = [v for v in _possible(entry, name, param) if v != OPTIONAL and v != value]
            others = [v for v in others if "{" not in repr(v)]  # raw dict answers are not values
            if others:
                choices.append((i, name, param, rng.choice(others)))
    if not choices:
        return None
    i, name, param, value = rng.choice(choices)
    return _set(answer, i, name, param, value)


def p_wrong_value(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    found = _pick_param(answer, rng)
    if found is None:
        return None
    i, name, param = found
    value = answer[i][name][param]
    if entry.language is Language.PYTHON:
        wrong = _wrong_python_value(value, _possible(entry, name, param))
    else:
        wrong = _wrong_source_value(value) if isinstance(value, str) else None
    return None if wrong is None else _set(answer, i, name, param, wrong)


def p_wrong_type(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    found = _pick_param(answer, rng)
    if found is None:
        return None
    i, name, param = found
    return _set(answer, i, name, param, _wrong_type(answer[i][name][param], entry.language))


def p_int_for_float(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    found = _pick_param(answer, rng, lambda p, v: isinstance(v, float) and v.is_integer())
    if found is None:
        return None
    i, name, param = found
    return _set(answer, i, name, param, int(answer[i][name][param]))


def p_float_for_int(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    found = _pick_param(answer, rng, lambda p, v: type(v) is int)
    if found is None:
        return None
    i, name, param = found
    return _set(answer, i, name, param, float(answer[i][name][param]))


def p_string_variant(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    found = _pick_param(answer, rng, lambda p, v: isinstance(v, str) and len(v) > 1)
    if found is None:
        return None
    i, name, param = found
    return _set(answer, i, name, param, _string_variant(answer[i][name][param], rng))


def p_list_edit(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    found = _pick_param(answer, rng, lambda p, v: isinstance(v, list) and len(v) > 0)
    if found is None:
        return None
    i, name, param = found
    value = list(answer[i][name][param])
    pick = rng.randrange(4)
    if pick == 0:
        value = value[:-1]
    elif pick == 1:
        value = list(reversed(value))
    elif pick == 2:
        value = tuple(value)  # type: ignore[assignment]
    else:
        value = [str(v).upper() if isinstance(v, str) else v for v in value]
    return _set(answer, i, name, param, value)


def p_dict_edit(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    found = _pick_param(answer, rng, lambda p, v: isinstance(v, dict) and len(v) > 0)
    if found is None:
        return None
    i, name, param = found
    value = dict(answer[i][name][param])
    key = rng.choice(list(value))
    pick = rng.randrange(3)
    if pick == 0:
        del value[key]
    elif pick == 1:
        value["extra_key"] = 1
    else:
        value[key] = _wrong_python_value(value[key], []) if value[key] is not None else 1
    return _set(answer, i, name, param, value)


def p_extra_call(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    if not answer:
        return None
    return [*copy.deepcopy(answer), copy.deepcopy(rng.choice(answer))]


def p_drop_call(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    if len(answer) < 2:
        return None
    out = copy.deepcopy(answer)
    del out[rng.randrange(len(out))]
    return out


def p_shuffle(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    if len(answer) < 2:
        return None
    out = copy.deepcopy(answer)
    rng.shuffle(out)
    return out


def p_source_raw(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    """Java/JavaScript: a value given as the plain JSON value instead of source text."""
    if entry.language is Language.PYTHON:
        return None
    found = _pick_param(answer, rng)
    if found is None:
        return None
    i, name, param = found
    allowed = [v for v in _possible(entry, name, param) if v != OPTIONAL]
    return _set(answer, i, name, param, allowed[0]) if allowed else None


def p_source_spacing(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    """Java/JavaScript: the same source text with different spacing or suffixes."""
    if entry.language is Language.PYTHON:
        return None
    found = _pick_param(answer, rng, lambda p, v: isinstance(v, str))
    if found is None:
        return None
    i, name, param = found
    text: str = answer[i][name][param]
    pick = rng.randrange(4)
    if pick == 0:
        text = text.replace(", ", ",")
    elif pick == 1:
        text = text.replace("{", "{ ").replace("}", " }")
    elif pick == 2:
        text = text.rstrip("LlFfn")
    else:
        text = f'"{text}"'
    return _set(answer, i, name, param, text)


def p_empty(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    return []


PERTURBATIONS: dict[str, Perturbation] = {
    "expert": p_expert,
    "wrong_name": p_wrong_name,
    "drop_required": p_drop_required,
    "drop_any": p_drop_any,
    "add_documented": p_add_documented,
    "unexpected_param": p_unexpected,
    "alternative_value": p_alternative,
    "wrong_value": p_wrong_value,
    "wrong_type": p_wrong_type,
    "int_for_float": p_int_for_float,
    "float_for_int": p_float_for_int,
    "string_variant": p_string_variant,
    "list_edit": p_list_edit,
    "dict_edit": p_dict_edit,
    "extra_call": p_extra_call,
    "drop_call": p_drop_call,
    "shuffle": p_shuffle,
    "source_raw": p_source_raw,
    "source_spacing": p_source_spacing,
    "empty": p_empty,
}

#: The corruptions the issue names; each is built to make the answer wrong.
CORRUPTIONS: dict[str, Perturbation] = {
    "wrong_name": p_wrong_name,
    "missing_required": p_drop_required,
    "wrong_value": p_wrong_value,
    "wrong_type": p_wrong_type,
    "extra_call": p_extra_call,
}


def combo(entry: Entry, answer: Answer, rng: random.Random) -> Answer | None:
    """Two perturbations in a row."""
    names = rng.sample(sorted(set(PERTURBATIONS) - {"expert", "empty"}), 2)
    out: Answer | None = answer
    for name in names:
        out = PERTURBATIONS[name](entry, out, rng) if out is not None else None
    return out
