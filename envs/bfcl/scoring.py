"""BFCL's single-turn AST checker, reproduced rule by rule.

A decoded answer (a list of calls) is compared with the entry's possible answers:

* category dispatch: `parallel` in the name -> every expected call must match a distinct model
  call, in any order; `multiple` -> exactly one call, checked against the expected function;
  otherwise exactly one call;
* per call: the function name; every required parameter present; no parameter that is neither
  documented nor in the possible answer; each value's type (exact Python type; an int is accepted
  where a float is declared; array/tuple element types one level deep; a value of the possible
  answer's own type counts as a "variable" and is compared as-is); each value against its
  possible values: strings after standardization (case, spaces and `,./-_*^` ignored, `'` read
  as `"`), lists element-wise with string elements standardized, dicts key by key, lists of
  dicts position by position, anything else by equality; every possible-answer parameter that
  is not optional (optional = `""` among its values) must be present;
* Java and JavaScript: every value must be a string of source text, which is read into a value
  of the declared type first (see `source_values`).

The behaviour matches bfcl-eval 2026.3.23's `ast_checker` (tests/bfcl/test_agreement.py compares
the two on perturbed answers); the code is ours.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from coevo.envs.bfcl.calls import Call
from coevo.envs.bfcl.tasks import Language
from coevo.envs.bfcl.source_values import (
    JAVA_TYPES,
    JS_TYPES,
    UnreadableType,
    java_value,
    js_value,
)

PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
_PYTHON_SEQUENCE_TYPES = ("array", "tuple")
_SOURCE_SEQUENCE_TYPES = ("Array", "ArrayList", "array")
_STANDARDIZE = re.compile(r"[ ,./\-_*^]")
#: BFCL marks an optional parameter by listing "" among its possible values.
OPTIONAL = ""


@dataclass
class CheckResult:
    valid: bool
    errors: list[str] = field(default_factory=list)
    error_type: str = ""

    @staticmethod
    def ok() -> CheckResult:
        return CheckResult(True)

    @staticmethod
    def fail(error_type: str, message: str) -> CheckResult:
        return CheckResult(False, [message], error_type)


def standardize(text: str) -> str:
    """BFCL's string normalization: "April 1, 2024" == "april 1 2024" == "April-1-2024"."""
    return _STANDARDIZE.sub("", text).lower().replace("'", '"')


class Unscorable(Exception):
    """The answer hits a case where BFCL's checker raises; BFCL then cannot score it as correct."""


def _standardize_items(values: Any) -> list[Any]:
    """A possible list answer with its string elements standardized. BFCL walks it by index, so
    a string is read per character (the optional marker "" becomes the empty list) and `{}` is
    the empty list; anything else makes BFCL raise."""
    if isinstance(values, dict) and not values:
        return []
    if not isinstance(values, (list, str)):
        raise Unscorable(f"cannot compare with possible value {values!r}")
    return [standardize(v) if type(v) is str else v for v in values]


# --------------------------------------------------------------------------- value checks
def _first_answer_type(possible: Sequence[Any]) -> type | None:
    for value in possible:
        if value != OPTIONAL:
            return type(value)
    return None


def _type_check(value: Any, possible: Sequence[Any], expected: type, item_type: type | None) -> tuple[bool, bool]:
    """(type ok, value is a variable): a value of the possible answer's own type, when that type
    differs from the declared one, is taken as a variable name and compared without conversion.
    Element types of arrays are checked one level deep against each list candidate."""
    answer_type = _first_answer_type(possible)
    is_variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        if item_type is None:
            return True, is_variable
        items = cast("list[Any]", value)  # item_type is only given for arrays
        for candidate in possible:
            if type(candidate) is list and not all(_type_check(item, candidate, item_type, None)[0] for item in items):
                continue
            return True, is_variable
    if answer_type is not None and type(value) is answer_type:
        return type(value) is not expected, True
    return False, is_variable


def _string_ok(value: str, possible: Sequence[Any]) -> bool:
    return standardize(value) in [standardize(p) for p in possible if type(p) is str]


def _list_ok(value: list, possible: Sequence[Any]) -> bool:
    model = [standardize(v) if type(v) is str else v for v in value]
    return model in [_standardize_items(p) for p in possible]


def _dict_ok(value: Any, possible: Sequence[Any]) -> bool:
    for candidate in possible:
        if candidate == OPTIONAL:
            continue
        if not isinstance(value, dict) or not isinstance(candidate, dict):
            raise Unscorable(f"cannot compare {value!r} with possible value {candidate!r}")
        if _dict_matches(value, candidate):
            return True
    return False


def _dict_matches(value: dict, candidate: dict) -> bool:
    for key, item in value.items():
        if key not in candidate:
            return False
        if (standardize(item) if type(item) is str else item) not in _standardize_items(candidate[key]):
            return False
    return all(key in value or OPTIONAL in allowed for key, allowed in candidate.items())


def _list_of_dicts_ok(value: list, possible: Sequence[Any]) -> bool:
    for candidate in possible:
        if not isinstance(candidate, (list, str)):
            raise Unscorable(f"cannot compare with possible value {candidate!r}")
        if len(value) != len(candidate):
            continue
        if all(_dict_ok(v, [c]) for v, c in zip(value, candidate)):
            return True
    return False


# --------------------------------------------------------------------------- one call
def check_call(
    doc: dict[str, Any],
    call: Call,
    expected: dict[str, dict[str, list[Any]]],
    language: Language,
    underscore_names: bool = False,
) -> CheckResult:
    """One model call against one expected call {name: {param: [possible values]}}."""
    possible = next(iter(expected.values()))
    name = doc["name"]
    if underscore_names:
        name = name.replace(".", "_")
    if call.error is not None:
        return CheckResult.fail("ast_decoder:decoder_failed", f"{call.name}: {call.error}")
    if call.name != name:
        return CheckResult.fail(
            "simple_function_checker:wrong_func_name",
            f"Function name {name!r} not found in model output.",
        )
    properties: dict[str, Any] = doc["parameters"]["properties"]
    for param in doc["parameters"]["required"]:
        if param not in call.kwargs:
            return CheckResult.fail(
                "simple_function_checker:missing_required",
                f"Missing required parameter: {param!r}.",
            )
    for param, value in call.kwargs.items():
        if param not in properties or param not in possible:
            return CheckResult.fail("simple_function_checker:unexpected_param", f"Unexpected parameter: {param!r}.")
        result = _check_value(param, value, properties[param], possible[param], language)
        if not result.valid:
            return result
    for param, values in possible.items():
        if param not in call.kwargs and OPTIONAL not in values:
            return CheckResult.fail(
                "simple_function_checker:missing_optional",
                f"Optional parameter {param!r} not provided and not marked as optional.",
            )
    return CheckResult.ok()


def _check_value(param: str, value: Any, spec: dict[str, Any], possible: list[Any], language: Language) -> CheckResult:
    declared: str = spec["type"]
    item_type: type | None = None
    if language is Language.PYTHON:
        expected = _lookup(PYTHON_TYPES, declared)
        if declared in _PYTHON_SEQUENCE_TYPES:
            item_type = _lookup(PYTHON_TYPES, spec["items"]["type"])
    else:
        table = JAVA_TYPES if language is Language.JAVA else JS_TYPES
        expected = _lookup(table, declared)
        if type(value) is not str:
            return CheckResult.fail(
                "type_error:java" if language is Language.JAVA else "type_error:js",
                f"Incorrect type for parameter {param!r}. Expected type String, "
                f"got {type(value).__name__}. Parameter value: {value!r}.",
            )
        read = java_value if language is Language.JAVA else js_value
        try:
            if declared in _SOURCE_SEQUENCE_TYPES:
                nested = spec["items"]["type"]
                item_type = _lookup(table, nested)
                value = read(value, declared, nested)
            else:
                value = read(value, declared)
        except UnreadableType as e:
            raise Unscorable(str(e)) from None

    if declared == "tuple" and type(value) is tuple:
        value = list(value)
    if language is Language.PYTHON and declared == "float" and type(value) is int:
        value = float(value)

    type_ok, is_variable = _type_check(value, possible, expected, item_type)
    if not type_ok:
        return CheckResult.fail(
            "type_error:simple",
            f"Incorrect type for parameter {param!r}. Expected type {declared}, "
            f"got {type(value).__name__}. Parameter value: {value!r}.",
        )
    if is_variable:
        ok, kind = value in possible, "value_error:others"
    elif expected is dict:
        ok, kind = _dict_ok(value, possible), "value_error:dict"
    elif expected is list and item_type is dict:
        ok, kind = _list_of_dicts_ok(value, possible), "value_error:list_dict"
    elif expected is str:
        ok, kind = _string_ok(value, possible), "value_error:string"
    elif expected is list:
        ok, kind = _list_ok(value, possible), "value_error:list/tuple"
    else:
        ok, kind = value in possible, "value_error:others"
    if not ok:
        return CheckResult.fail(kind, f"Invalid value for parameter {param!r}: {value!r}. Expected one of {possible}.")
    return CheckResult.ok()


def _lookup(table: dict[str, type], declared: str) -> type:
    try:
        return table[declared]
    except KeyError:
        raise Unscorable(f"BFCL has no type rule for {declared!r}") from None


# --------------------------------------------------------------------------- whole answer
def _find_doc(docs: Sequence[dict[str, Any]], name: str) -> dict[str, Any] | None:
    return next((d for d in docs if d["name"] == name), None)


def check_answer(
    docs: Sequence[dict[str, Any]],
    calls: Sequence[Call],
    possible_answer: Sequence[dict[str, dict[str, list[Any]]]],
    category: str,
    language: Language,
    underscore_names: bool = False,
) -> CheckResult:
    """A whole single-turn answer, dispatched on the category as BFCL does."""
    try:
        if "parallel" in category:
            return _check_unordered(docs, calls, possible_answer, language, underscore_names)
        if "multiple" in category:
            if len(calls) != len(possible_answer):
                return CheckResult.fail("wrong_count", "Wrong number of functions.")
            expected = possible_answer[0]
            doc = _find_doc(docs, next(iter(expected)))
            if doc is None:
                raise Unscorable(f"no function doc for {next(iter(expected))!r}")
        else:
            if len(calls) != 1:
                return CheckResult.fail("wrong_count", "Wrong number of functions.")
            expected, doc = possible_answer[0], docs[0]
        return check_call(doc, calls[0], expected, language, underscore_names)
    except Unscorable as e:
        return CheckResult.fail("checker_error", f"BFCL's checker cannot score this answer: {e}")


def _check_unordered(
    docs: Sequence[dict[str, Any]],
    calls: Sequence[Call],
    possible_answer: Sequence[dict[str, dict[str, list[Any]]]],
    language: Language,
    underscore_names: bool,
) -> CheckResult:
    if len(calls) != len(possible_answer):
        return CheckResult.fail("wrong_count", "Wrong number of functions.")
    matched: set[int] = set()
    for i, expected in enumerate(possible_answer):
        doc = _find_doc(docs, next(iter(expected)))
        if doc is None:
            raise Unscorable(f"no function doc for {next(iter(expected))!r}")
        errors: list[str] = []
        for j, call in enumerate(calls):
            if j in matched:
                continue
            result = check_call(doc, call, expected, language, underscore_names)
            if result.valid:
                matched.add(j)
                break
            errors.extend(f"model call {j}: {e}" for e in result.errors)
        else:
            return CheckResult(
                False,
                [f"Could not find a matching function for expected call {i}.", *errors],
                "parallel_function_checker_no_order:cannot_find_match",
            )
    return CheckResult.ok()
