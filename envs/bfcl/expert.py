"""The expert: answers written from BFCL's possible answers and ground truth.

Single-turn: for each expected call, every documented parameter takes the first value listed
for it (left out when that is the optional marker "" and the parameter is not required; inside
dict answers likewise per key). Python entries are written as Python
literals; Java and JavaScript entries as strings of source text that BFCL's readers turn back
into the expected value (`new int[]{1, 2}`, `new ArrayList<>(Arrays.asList("a"))`,
`new HashMap<String, Object>() {{ put("k", 1); }}`, `[1, 2]`, `{a: 1}`, `5n`, ...).
Multi-turn: a turn's ground-truth calls in one reply (positional arguments named from the
method signature), then a plain-text reply that ends the turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from coevo.envs.bfcl.calls import Call, decode_source_call
from coevo.envs.bfcl.scoring import OPTIONAL
from coevo.envs.bfcl.tasks import Language

NO_CALL_REPLY = "None of the provided functions can be used to answer this request."
TURN_DONE_REPLY = "I have completed the requested operations."
CANNOT_PROCEED_REPLY = "I cannot complete this request: a required function or piece of information is missing."


def _choose(values: Sequence[Any], required: bool = False) -> tuple[bool, Any]:
    """The answer's first listed value; an optional parameter listed as "" first is left out
    (a required one takes its first real value)."""
    if not isinstance(values, list):
        return True, values
    for v in values:
        if v != OPTIONAL:
            return True, v
        if not required:
            return False, None
    return (True, OPTIONAL) if required and values else (False, None)


def _pick(value: Any, spec: dict[str, Any]) -> Any:
    """Choose inside structured values: a dict answer maps each key to its possible values."""
    declared = spec.get("type")
    if isinstance(value, dict) and declared in ("dict", "HashMap"):
        return _pick_dict(value)
    if isinstance(value, list) and spec.get("items", {}).get("type") == "dict":
        return [_pick_dict(v) if isinstance(v, dict) else v for v in value]
    return value


def _pick_dict(value: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, allowed in value.items():
        present, v = _choose(allowed)
        if present:
            out[key] = v
    return out


def render_calls(calls: Sequence[Call]) -> str:
    """Python-call syntax for a list of calls with literal keyword arguments."""
    return "[" + ", ".join(c.render() for c in calls) + "]"


def single_turn_answer(
    docs: Sequence[dict[str, Any]],
    possible_answer: Sequence[dict[str, dict[str, list[Any]]]],
    language: Language,
    underscore_names: bool = False,
) -> str:
    calls = []
    for expected in possible_answer:
        ((name, params),) = expected.items()
        doc = next((d for d in docs if d["name"] == name), None)
        properties = doc["parameters"]["properties"] if doc else {}
        required = doc["parameters"].get("required", []) if doc else []
        kwargs = {}
        for param, values in params.items():
            if param not in properties:
                continue  # an undocumented parameter is never accepted; it can only be left out
            present, value = _choose(values, param in required)
            if not present:
                continue
            spec = properties.get(param, {})
            value = _pick(value, spec)
            if language is not Language.PYTHON:
                value = _source_text(value, spec, language)
            kwargs[param] = value
        calls.append(Call(name.replace(".", "_") if underscore_names else name, kwargs))
    if language is Language.PYTHON:
        return render_calls(calls)
    parts = [
        f"{c.name}(" + ", ".join(f"{k}={_source_argument(v, language)}" for k, v in c.kwargs.items()) + ")"
        for c in calls
    ]
    return "[" + ", ".join(parts) + "]"


def _source_argument(text: str, language: Language) -> str:
    """A Java/JavaScript argument as the reply spells it. BFCL keeps a string literal's text raw
    (escapes are not undone), so a value that needs escapes in `repr` is written between
    other quotes or unquoted, whichever reads back as exactly `text`."""
    candidates = [repr(text)] + [q + text + q for q in ("'", '"') if q not in text] + [text]
    for spelled in candidates:
        decoded = decode_source_call(f"[f(a={spelled})]", language)
        if decoded.error is None and decoded.calls[0].kwargs.get("a") == text:
            return spelled
    return repr(text)


# --------------------------------------------------------------------------- source text
def _source_text(value: Any, spec: dict[str, Any], language: Language) -> str:
    declared = spec.get("type", "any")
    item = spec.get("items", {}).get("type")
    if language is Language.JAVA:
        return _java(value, declared, item)
    return _js(value, declared, item)


def _float_text(value: float, allow_exponent: bool) -> str:
    text = repr(float(value))
    if "e" in text and not allow_exponent:
        text = f"{value:.20f}".rstrip("0")
        if text.endswith("."):
            text += "0"
    return text


def _java(value: Any, declared: str, item: str | None) -> str:
    if isinstance(value, str):
        return value  # a variable name or a string: read back unchanged
    if isinstance(value, bool):
        return "true" if value else "false"
    if declared == "long" and isinstance(value, int):
        return f"{value}L"
    if declared == "float" and isinstance(value, (int, float)):
        return (str(value) if isinstance(value, int) else _float_text(value, True)) + "f"
    if declared == "double" and isinstance(value, (int, float)):
        return str(value) if isinstance(value, int) else _float_text(value, True)
    if declared == "Array" and isinstance(value, list):
        elements = ", ".join(_java_element(v, item, quote=False) for v in value)
        return f"new {_java_array_type(item)}[]{{{elements}}}"
    if declared == "ArrayList" and isinstance(value, list):
        if not value:
            return "new ArrayList<>()"
        elements = ", ".join(_java_element(v, item, quote=True) for v in value)
        return f"new ArrayList<>(Arrays.asList({elements}))"
    if declared == "HashMap" and isinstance(value, dict):
        puts = [f'put("{key}", {_java_literal(v)});' for key, v in value.items()]
        return "new HashMap<String, Object>() {{ " + " ".join(puts) + " }}"
    return str(value)


def _java_array_type(item: str | None) -> str:
    return {"integer": "int", "long": "long", "String": "String", "char": "char"}.get(item or "", "Object")


def _java_element(value: Any, item: str | None, quote: bool) -> str:
    if item in ("String", "char") and quote:
        return f'"{value}"'
    return _java(value, item or "any", None)


def _java_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float):
        return _float_text(value, True)
    return str(value)


def _js(value: Any, declared: str, item: str | None) -> str:
    if isinstance(value, str):
        quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'"
        return f'"{value}"' if quoted and declared == "String" else value
    if isinstance(value, bool):
        return "true" if value else "false"
    if declared == "Bigint" and isinstance(value, int):
        return f"{value}n"
    if isinstance(value, float) or (declared == "float" and isinstance(value, int)):
        return _float_text(value, False) if isinstance(value, float) else str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_js_element(v, item) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {_js_literal(v)}" for key, v in value.items()) + "}"
    return str(value)


def _js_element(value: Any, item: str | None) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    return _js(value, item or "any", None)


def _js_literal(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_js_literal(v) for v in value) + "]"
    return _js(value, "any", None)
