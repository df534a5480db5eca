"""Reading Java and JavaScript argument source text into Python values, as BFCL's checker does.

BFCL asks for Java/JavaScript arguments "in string representation" and converts that text with
pattern-based readers before comparing with the possible answers. A text that does not match
the declared type's pattern stays a string; the comparison then fails unless the possible answer
is itself that string (a variable name such as `mapController`). The rules below follow BFCL's
readers case by case, including their limits, because agreeing with BFCL's scores is the point:

* Java `char` never converts (BFCL's pattern for it cannot match); the types BFCL has no reader
  for (`Set`, `Hashtable`, `Queue`, `Stack`) raise `UnreadableType`, as BFCL raises.
* Element lists are split on commas without regard to quotes or nesting.
* JavaScript objects are read with a shallow key/value pattern; a nested object ends at its
  first closing brace.
"""

from __future__ import annotations

import re
from typing import Any

JAVA_TYPES: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
    "Queue": list,
    "Stack": list,
    "String": str,
    "any": str,
}

JS_TYPES: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}

_INT = re.compile(r"^-?\d+$")
_JAVA_FLOAT = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$")
_JAVA_DOUBLE = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_JAVA_LONG = re.compile(r"^-?\d+[lL]$")
_JAVA_ARRAYLIST_ASLIST = re.compile(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)")
_JAVA_ARRAYLIST_ADDS = re.compile(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", re.DOTALL)
_JAVA_ADD = re.compile(r"add\((.+?)\)")
_JAVA_ARRAYLIST_EMPTY = re.compile(r"new\s+ArrayList<\w*>\(\)")
_JAVA_ARRAY = re.compile(r"new\s+\w+\[\]\s*\{(.*?)\}")
_JAVA_HASHMAP = re.compile(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", re.DOTALL)
_JAVA_PUT = re.compile(r"put\(\"(.*?)\",\s*(.*?)\)")
_JAVA_HASHMAP_EMPTY = re.compile(r"new\s+HashMap<.*?>\s*\(\)")

_JS_FLOAT = re.compile(r"^-?\d+(\.\d+)?$")
_JS_BIGINT = re.compile(r"^-?\d+n$")
_JS_ARRAY_2D = re.compile(r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)")
_JS_ARRAY = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")
_JS_INNER_ARRAY = re.compile(r"\[(.*?)\]")
_JS_OBJECT = re.compile(r"\{(.*?)\}")
_JS_PAIR = re.compile(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)")


class UnreadableType(ValueError):
    """A declared type BFCL has no reader for (BFCL raises on it)."""


def _number(text: str) -> Any:
    """Python's own int()/float() reading, then the text itself."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


# --------------------------------------------------------------------------- Java
def java_value(text: str, java_type: str, item_type: str | None = None) -> Any:
    """The value a Java argument text stands for, given its declared type."""
    if java_type in ("byte", "short", "integer"):
        return int(text) if _INT.match(text) else text
    if java_type == "float":
        return float(text[:-1]) if _JAVA_FLOAT.match(text) else text
    if java_type == "double":
        return float(text) if _JAVA_DOUBLE.match(text) else text
    if java_type == "long":
        return int(text[:-1]) if _JAVA_LONG.match(text) else text
    if java_type == "boolean":
        return text == "true" if text in ("true", "false") else text
    if java_type == "ArrayList":
        return _java_arraylist(text, item_type)
    if java_type == "Array":
        return _java_array(text, item_type)
    if java_type == "HashMap":
        return _java_hashmap(text)
    if java_type in ("String", "any", "char"):
        return text
    raise UnreadableType(f"no reader for Java type {java_type!r}")


def java_literal(text: str) -> Any:
    """An untyped Java literal: boolean, "string", 1L, 1.5f, int, double, else the text."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _JAVA_LONG.match(text):
        return int(text[:-1])
    if _JAVA_FLOAT.match(text):
        return float(text[:-1])
    return _number(text)


def _java_element(text: str, item_type: str | None) -> Any:
    if item_type in ("char", "String"):
        return text[1:-1]
    return java_value(text, item_type) if item_type else java_literal(text)


def _java_arraylist(text: str, item_type: str | None) -> Any:
    m = _JAVA_ARRAYLIST_ASLIST.search(text)
    if m:
        return [_java_element(part.strip(), item_type) for part in m.group(1).split(",")]
    m = _JAVA_ARRAYLIST_ADDS.search(text)
    if m:
        return [_java_element(add.strip(), item_type) for add in _JAVA_ADD.findall(m.group(1))]
    if _JAVA_ARRAYLIST_EMPTY.search(text):
        return []
    return text


def _java_array(text: str, item_type: str | None) -> Any:
    m = _JAVA_ARRAY.search(text)
    if not m:
        return text
    parts = [p.strip() for p in m.group(1).split(",") if p.strip()]
    if item_type:
        return [java_value(p, item_type) for p in parts]
    return [java_literal(p) for p in parts]


def _java_hashmap(text: str) -> Any:
    m = _JAVA_HASHMAP.search(text)
    if m:
        body = m.group(1)
        if not body.strip():
            return {}
        return {key: java_literal(value.strip()) for key, value in _JAVA_PUT.findall(body)}
    if _JAVA_HASHMAP_EMPTY.search(text):
        return {}
    return text


# --------------------------------------------------------------------------- JavaScript
def js_value(text: str, js_type: str, item_type: str | None = None) -> Any:
    """The value a JavaScript argument text stands for, given its declared type."""
    if js_type == "String":
        quoted = len(text) >= 1 and text[0] == text[-1] and text[0] in "\"'"
        return text[1:-1] if quoted else text
    if js_type == "integer":
        return int(text) if _INT.match(text) else text
    if js_type == "float":
        return float(text) if _JS_FLOAT.match(text) else text
    if js_type == "Bigint":
        return int(text[:-1]) if _JS_BIGINT.match(text) else text
    if js_type == "Boolean":
        return text == "true" if text in ("true", "false") else text
    if js_type == "dict":
        return _js_object(text)
    if js_type == "array":
        return _js_array(text, item_type)
    if js_type == "any":
        return text
    raise UnreadableType(f"no reader for JavaScript type {js_type!r}")


def js_literal(text: str) -> Any:
    """An untyped JavaScript literal: boolean, quoted string, number, else the text."""
    text = text.strip()
    if text == "true":
        return True
    if text == "false":
        return False
    if len(text) >= 1 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return _number(text)


def _js_array(text: str, item_type: str | None) -> Any:
    code = text.strip()
    try:
        m2 = _JS_ARRAY_2D.match(code)
        if m2:
            rows = []
            for i, inner in enumerate(_JS_INNER_ARRAY.findall(m2.group(0))):
                inner = inner.strip()
                if i == 0 and inner.startswith("["):
                    inner = inner[1:]
                rows.append([js_literal(e.strip()) for e in inner.split(",")])
            return rows
        m = _JS_ARRAY.match(code)
        if not m:
            return code
        inner = m.group(1) if m.group(1) is not None else m.group(2)
        inner = (inner or "").strip()
        parts = inner.split(",") if inner else []
        if not item_type:
            return [js_literal(p.strip()) for p in parts]
        out = []
        for p in parts:
            p = p.strip()
            quoted_item = p.startswith("'") or p.startswith('"')
            out.append(js_value(p, item_type, "String" if quoted_item else None))
        return out
    except (ValueError, IndexError):
        return code


def _js_object(text: str) -> Any:
    code = text.strip()
    if code == "{}":
        return {}
    m = _JS_OBJECT.match(code)
    if not m:
        return code
    try:
        out: dict[str, Any] = {}
        for key, value in _JS_PAIR.findall(m.group(1)):
            key = key.strip().strip("'\"")
            value = value.strip()
            if value.startswith("[") and value.endswith("]"):
                out[key] = _js_array(value, None)
            elif value.startswith("{") and value.endswith("}"):
                out[key] = _js_object(value)
            else:
                out[key] = js_literal(value.strip("'\""))
        return out
    except (ValueError, IndexError):
        return code
