"""Turning an agent's reply (and BFCL's ground-truth call strings) into function calls.

Nothing here evaluates text: Python-call syntax is read with `ast`; JSON tool calls with `json`.
Two decoders:

* "bfcl" (the default): what BFCL's prompting handlers accept, decoded to the values they
  decode (`prompting.py`: bare names as strings, arithmetic computed, positional arguments
  dropped), refusing only what JSON cannot carry or what BFCL would run as code;
* "lenient": this env's earlier, more forgiving reader: a fenced code block or a <TOOLCALL> tag
  is unwrapped first, JSON tool calls are accepted in BFCL's `{"function", "parameters"}` shape
  and the OpenAI-style `{"name", "arguments"}` shapes, arguments named like Python keywords
  (`from=`) are read, and only literal values are accepted (a bad value makes that call an
  error, not the reply).

For Java and JavaScript entries BFCL parses the call with a Java/JavaScript grammar, which makes
every argument its *source text* (string literals lose their quotes): `f(flag=true, n=5,
arr=[1, 2])` yields {"flag": "true", "n": "5", "arr": "[1, 2]"}. The "bfcl" decoder parses them
with tree-sitter as BFCL does (`source_calls.py`); without tree-sitter installed it falls back
to reading the Python AST (`decode_source_call_ast`, less exact); the lenient decoder reads the
Python AST (a string literal gives its value, anything else its source segment).
"""

from __future__ import annotations

import ast
import io
import json
import keyword
import math
import re
import tokenize
from dataclasses import dataclass, field
from typing import Any

from coevo.envs.bfcl import prompting, source_calls
from coevo.envs.bfcl.tasks import Language

#: The reply decoders (`decoder` env option); "bfcl" is BFCL's prompting decoder.
DECODERS = ("bfcl", "lenient")
DEFAULT_DECODER = "bfcl"

#: A single reply may not carry more calls than this (a guard, far above any BFCL answer).
MAX_CALLS_PER_REPLY = 64

_FENCE = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n?(.*?)```", re.DOTALL)
_TOOLCALL = re.compile(r"<TOOLCALL>(.*?)</TOOLCALL>", re.DOTALL)
_CALL_LIKE = re.compile(r"[A-Za-z_][\w.]*\(")
_KEYWORD_ARG_SUFFIX = "__bfcl_keyword_arg"


@dataclass(frozen=True)
class Call:
    """One function call. `error` says why it cannot be used (it is still a call attempt)."""

    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    args: tuple[Any, ...] = ()
    error: str | None = None

    def as_bfcl(self) -> dict[str, dict[str, Any]]:
        """BFCL's decoded form: {function name: {param: value}}."""
        return {self.name: dict(self.kwargs)}

    def render(self) -> str:
        """The call as BFCL writes a decoded call back out (the `name` of a tool result)."""
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"


@dataclass(frozen=True)
class Decoded:
    """The calls found in a reply. `error` is set when the reply could not be read as calls."""

    calls: list[Call]
    format: str | None = None  # "python" | "json" | None
    error: str | None = None

    @property
    def has_call(self) -> bool:
        """BFCL's notion of "the model made a call": decoding worked and found at least one."""
        return self.error is None and len(self.calls) > 0

    @property
    def call_errors(self) -> list[str]:
        return [f"{c.name}: {c.error}" for c in self.calls if c.error]


class NotLiteral(ValueError):
    pass


# --------------------------------------------------------------------------- literals
def literal_value(node: ast.expr) -> Any:
    """A Python literal (str, number, bool, None, list, tuple, dict), never evaluated code."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, float) and not math.isfinite(node.value):
            raise NotLiteral(f"{ast.unparse(node)} is not a finite number")
        if isinstance(node.value, (str, int, float, bool)) or node.value is None:
            return node.value
        raise NotLiteral(f"unsupported constant {ast.unparse(node)}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = node.operand
        if (
            isinstance(operand, ast.Constant)
            and isinstance(operand.value, (int, float))
            and not isinstance(operand.value, bool)
        ):
            return -operand.value if isinstance(node.op, ast.USub) else operand.value
    if isinstance(node, ast.List):
        return [literal_value(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(literal_value(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise NotLiteral("`**` unpacking is not a literal")
        out = {}
        for k, v in zip(node.keys, node.values):
            key = literal_value(k)  # type: ignore[arg-type]
            try:
                hash(key)
            except TypeError:
                raise NotLiteral(f"unhashable dict key {key!r}") from None
            out[key] = literal_value(v)
        return out
    raise NotLiteral(f"{ast.unparse(node)} is not a literal value")


def _source_value(node: ast.expr, source: str) -> Any:
    """Java/JavaScript argument: a string literal's value, else the argument's source text."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    text = ast.get_source_segment(source, node)
    return text if text is not None else ast.unparse(node)


def dotted_name(func: ast.expr) -> str | None:
    """`a.b.c` of a call's callee, or None when it is not a plain (dotted) name."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    parts.append(func.id)
    return ".".join(reversed(parts))


def _escape_keyword_args(body: str) -> str:
    """Rename arguments spelled like Python keywords (`from=`, `class=`; some Java and live
    functions have them) so `ast` can read the call; `_kwarg_name` restores them."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(body).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return body
    renames = [
        tok
        for tok, nxt in zip(tokens, tokens[1:])
        if tok.type == tokenize.NAME and keyword.iskeyword(tok.string) and nxt.type == tokenize.OP and nxt.string == "="
    ]
    if not renames:
        return body
    lines = body.splitlines(keepends=True)
    for tok in reversed(renames):  # right to left keeps earlier offsets valid
        row, col = tok.start[0] - 1, tok.start[1]
        line = lines[row]
        lines[row] = line[:col] + tok.string + _KEYWORD_ARG_SUFFIX + line[col + len(tok.string) :]
    return "".join(lines)


def _kwarg_name(name: str) -> str:
    if name.endswith(_KEYWORD_ARG_SUFFIX):
        original = name[: -len(_KEYWORD_ARG_SUFFIX)]
        if keyword.iskeyword(original):
            return original
    return name


def _call_from_node(node: ast.Call, source: str, language: Language, allow_positional: bool) -> Call:
    name = dotted_name(node.func)
    if name is None:
        return Call(ast.unparse(node.func), error="the called object must be a function name")
    kwargs: dict[str, Any] = {}
    args: list[Any] = []
    try:
        for kw in node.keywords:
            if kw.arg is None:
                raise NotLiteral("`**` unpacking is not supported; name every argument")
            arg = _kwarg_name(kw.arg)
            if arg in kwargs:
                raise NotLiteral(f"argument {arg!r} is given twice")
            if language is Language.PYTHON:
                kwargs[arg] = literal_value(kw.value)
            else:
                kwargs[arg] = _source_value(kw.value, source)
        if node.args:
            if not allow_positional:
                raise NotLiteral(
                    f"positional arguments are not supported; name every argument, e.g. {name}(param=value)"
                )
            for a in node.args:
                if isinstance(a, ast.Starred):
                    raise NotLiteral("`*` unpacking is not supported")
                args.append(literal_value(a))
    except NotLiteral as e:
        return Call(name, kwargs, tuple(args), error=str(e))
    return Call(name, kwargs, tuple(args))


# --------------------------------------------------------------------------- python syntax
def _unwrap(text: str) -> str:
    m = _TOOLCALL.search(text)
    if m:
        text = m.group(1)
    m = _FENCE.search(text)
    if m:
        text = m.group(1)
    return text.strip()


def _parsed_elements(text: str, what: str) -> tuple[str, list[ast.expr] | Decoded]:
    """The reply packaged as BFCL packages it, and the elements of its top-level list (a lone
    expression: itself); a reply Python cannot parse gives the refusal, "not <what>"."""
    body = _escape_keyword_args(prompting.wrap(text))
    try:
        tree = ast.parse(body, mode="eval")
    except SyntaxError as e:
        return body, Decoded([], "python", f"not {what}: {e.msg}")
    except (ValueError, RecursionError, MemoryError):
        return body, Decoded([], "python", f"not {what}")
    top = tree.body
    return body, list(top.elts) if isinstance(top, (ast.List, ast.Tuple)) else [top]


def decode_python(text: str, language: Language = Language.PYTHON) -> Decoded:
    """`[f(a=1), g(b='x')]` (brackets optional) with literal values only (Java/JavaScript:
    source text), packaged as BFCL's prompting decoder expects it."""
    body, elements = _parsed_elements(text, "a list of function calls")
    if isinstance(elements, Decoded):
        return elements
    if len(elements) > MAX_CALLS_PER_REPLY:
        return Decoded([], "python", f"more than {MAX_CALLS_PER_REPLY} calls in one reply")
    calls: list[Call] = []
    for el in elements:
        if not isinstance(el, ast.Call):
            return Decoded([], "python", f"{ast.unparse(el)[:80]!r} is not a function call")
        calls.append(_call_from_node(el, body, language, allow_positional=False))
    return Decoded(calls, "python")


def decode_source_call(text: str, language: Language) -> Decoded:
    """A Java/JavaScript reply the way BFCL's prompting decoder reads it: with tree-sitter
    (`source_calls.py`, BFCL's rules) when it is installed (the `bfcl` extra), else
    approximated from the Python syntax tree (`decode_source_call_ast`)."""
    if not source_calls.available():
        return decode_source_call_ast(text, language)
    body = prompting.wrap(text)[1:-1]  # BFCL drops the brackets it has just made sure of
    try:
        name, kwargs = source_calls.DECODERS[language.value](body)
    except source_calls.SourceDecodeError as e:
        return Decoded([], "python", str(e))
    return Decoded([Call(name, kwargs)], "python")


def decode_source_call_ast(text: str, language: Language) -> Decoded:
    """The fallback without tree-sitter: BFCL's reading approximated from the Python syntax
    tree (78% / 87% agreement on the fixture's Java / JavaScript replies): exactly one call;
    each named argument is its source text, a string literal without its quotes and with its escapes kept raw.
    JavaScript drops positional arguments, except a bare name (BFCL keys it by None: refused);
    Java refuses them (tree-sitter reports a syntax error on every one we recorded)."""
    body, elements = _parsed_elements(text, "a function call")
    if isinstance(elements, Decoded):
        return elements
    if len(elements) != 1 or not isinstance(elements[0], ast.Call):
        return Decoded([], "python", f"BFCL reads exactly one {language.value} call per reply")
    node = elements[0]
    name = dotted_name(node.func)
    if name is None:
        return Decoded([], "python", "the called object must be a function name")
    if node.args and (language is Language.JAVA or any(isinstance(a, (ast.Name, ast.Starred)) for a in node.args)):
        return Decoded([], "python", "a positional argument; name every argument")
    kwargs: dict[str, Any] = {}
    for kw in node.keywords:
        if kw.arg is None:
            return Decoded([], "python", "`**` unpacking is not supported; name every argument")
        arg = _kwarg_name(kw.arg)
        if arg in kwargs:
            return Decoded([], "python", f"argument {arg!r} is given twice")
        kwargs[arg] = _raw_source_value(kw.value, body)
    return Decoded([Call(name, kwargs)], "python")


def _raw_source_value(node: ast.expr, source: str) -> str:
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(text) >= 2:
        if text[0] == text[-1] and text[0] in "\"'":
            return text[1:-1]
    return text


# --------------------------------------------------------------------------- JSON tool calls
def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def _loads(text: str) -> Any:
    """json.loads without NaN/Infinity (they cannot travel back out as JSON)."""
    return json.loads(text, parse_constant=_no_constant)


def _json_call(obj: Any) -> Call:
    if not isinstance(obj, dict):
        raise ValueError("each tool call must be a JSON object")
    if "function" in obj and isinstance(obj["function"], dict):  # {"type": "function", ...}
        obj = obj["function"]
    if "function" in obj and isinstance(obj["function"], str):  # BFCL's own JSON format
        name, arguments = obj["function"], obj.get("parameters", obj.get("arguments", {}))
    elif "name" in obj and isinstance(obj["name"], str):
        name, arguments = obj["name"], obj.get("arguments", obj.get("parameters", {}))
    else:
        raise ValueError('a tool call needs a "name" (or "function") and "arguments"')
    if isinstance(arguments, str):
        try:
            arguments = _loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as e:
            return Call(name, error=f"arguments are not valid JSON: {e.msg}")
        except (ValueError, RecursionError) as e:
            return Call(name, error=f"arguments are not valid JSON: {e}")
    if not isinstance(arguments, dict):
        return Call(name, error="arguments must be a JSON object")
    return Call(name, dict(arguments))


def decode_json(text: str) -> Decoded | None:
    """JSON tool calls, or None when the text is not JSON at all."""
    body = text.strip()
    if not body or body[0] not in "[{":
        return None
    try:
        data = _loads(body)
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        return None
    if isinstance(data, dict) and isinstance(data.get("tool_calls"), list):
        data = data["tool_calls"]
    items = data if isinstance(data, list) else [data]
    if len(items) > MAX_CALLS_PER_REPLY:
        return Decoded([], "json", f"more than {MAX_CALLS_PER_REPLY} calls in one reply")
    try:
        calls = [_json_call(item) for item in items]
    except ValueError as e:
        return Decoded([], "json", str(e))
    return Decoded(calls, "json")


def decode_reply(text: str, language: Language = Language.PYTHON, decoder: str = DEFAULT_DECODER) -> Decoded:
    """The calls in an agent reply, read by `decoder` ("bfcl" or "lenient", module docstring)."""
    if not isinstance(text, str):
        return Decoded([], None, "the reply must be text")
    if decoder == "lenient":
        return _decode_lenient(text, language)
    if decoder != "bfcl":
        raise ValueError(f"unknown decoder {decoder!r}; known: {list(DECODERS)}")
    if language is not Language.PYTHON:
        return decode_source_call(text, language)
    try:
        found = prompting.decode(text)
    except prompting.DecodeError as e:
        return Decoded([], "python", str(e))
    if len(found) > MAX_CALLS_PER_REPLY:
        return Decoded([], "python", f"more than {MAX_CALLS_PER_REPLY} calls in one reply")
    return Decoded([Call(name, kwargs) for name, kwargs in found], "python")


def _decode_lenient(text: str, language: Language) -> Decoded:
    """JSON tool calls if the (unwrapped) reply is JSON, else Python-call syntax of literals."""
    body = _unwrap(text)
    if not body:
        return Decoded([], None)
    as_json = decode_json(body)
    if as_json is not None and (as_json.error is None or body.lstrip().startswith("{")):
        return as_json
    return decode_python(body, language)


def looks_like_call_attempt(text: str) -> bool:
    """Whether an unreadable reply was meant as calls (`name(`, a bracket, a code fence) rather
    than plain prose; used only to explain, never to score."""
    body = text.strip()
    return bool(body) and (body[0] in "[{`<" or _CALL_LIKE.search(body) is not None)


# --------------------------------------------------------------------------- ground truth
def parse_ground_truth_call(text: str) -> Call:
    """One call string of BFCL's multi-turn ground truth, e.g. "sort('final_report.pdf')".

    These may pass arguments by position; values must be literals. Raises ValueError otherwise.
    """
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as e:
        raise ValueError(f"ground-truth call {text!r} does not parse: {e.msg}") from None
    if not isinstance(node, ast.Call):
        raise ValueError(f"ground-truth entry {text!r} is not a call")
    call = _call_from_node(node, text, Language.PYTHON, allow_positional=True)
    if call.error:
        raise ValueError(f"ground-truth call {text!r}: {call.error}")
    return call
