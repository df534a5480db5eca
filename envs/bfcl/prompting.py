"""BFCL's prompting-mode decoder for Python-syntax replies, re-implemented without `eval`.

BFCL (bfcl-eval 2026.3.23) reads a prompting model's reply like this: strip backticks, newlines
and spaces from both ends, add a `[` in front and a `]` behind unless they are there, parse the
result as one Python expression, and require a call or a list of calls. Each call becomes
{dotted name: {keyword: value}}; positional arguments are dropped unread. A value is decoded by
its syntax:

* a constant is itself (`...` becomes the string "..."); a bare name is its own spelling
  (`unit=units` gives "units"); a subscript is its source text (`x[0]`);
* any unary operator negates a constant operand (BFCL's quirk: `+5` and `~5` give -5,
  `not True` gives -1) and fails on anything else;
* lists, tuples and dicts are read element by element (dict keys too);
* arithmetic (`base=2*5`) is computed: BFCL runs it through `eval`; we compute it from the
  syntax tree over literal operands only (see `_compute`);
* a call without keywords is its source text (`g(1)`), a call with keywords is decoded like a
  top-level call ({"g": {"b": 1}}); a lambda, an attribute, an f-string, a set, a comparison or
  any other form fails, and one failing value fails the whole reply, as in BFCL.

Where BFCL would produce a value that JSON cannot carry (complex numbers, bytes, infinities,
sets, `**` arguments keyed by None) or would evaluate code (names and calls inside arithmetic),
we refuse the reply instead; `docs/bfcl.md` lists these deviations with their measured counts.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from typing import Any

#: Arithmetic guards: BFCL would compute these (or hang); we refuse instead.
MAX_SEQUENCE_LENGTH = 1_000_000
MAX_INT_BITS = 14_000  # about 4,300 decimal digits, Python's int-to-text limit
_FORMAT_WIDTH = re.compile(r"%[^a-zA-Z%]*")

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
    ast.Not: operator.not_,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


class DecodeError(ValueError):
    """The reply is not what BFCL's decoder accepts (BFCL raises on it)."""


class Refused(DecodeError):
    """BFCL would accept this, but with a value JSON cannot carry or by evaluating code."""


# --------------------------------------------------------------------------- the reply
def wrap(text: str) -> str:
    """BFCL's packaging step: strip "`", newlines and spaces at both ends, ensure `[...]`."""
    body = text.strip("`\n ")
    if not body.startswith("["):
        body = "[" + body
    if not body.endswith("]"):
        body = body + "]"
    return body


def decode(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The reply's calls as (name, keyword arguments); raises DecodeError where BFCL raises."""
    body = wrap(text)
    try:
        tree = ast.parse(body, mode="eval")
    except SyntaxError as e:
        raise DecodeError(f"not a list of function calls: {e.msg}") from None
    except (ValueError, RecursionError, MemoryError):
        raise DecodeError("not a list of function calls") from None
    top = tree.body
    if isinstance(top, ast.Call):
        elements: list[ast.expr] = [top]
    elif isinstance(top, (ast.List, ast.Tuple, ast.Set)):
        elements = list(top.elts)
    else:
        raise DecodeError("the reply is not a list of function calls")
    calls = []
    for element in elements:
        if not isinstance(element, ast.Call):
            raise DecodeError(f"{_clip(element)} is not a function call")
        name, kwargs = _call(element)
        calls.append((name, _carried(kwargs)))  # checked whole: a later dict key may replace a value
    return calls


def _clip(node: ast.AST) -> str:
    text = ast.unparse(node)
    return repr(text if len(text) <= 80 else text[:77] + "...")


def call_name(func: ast.expr) -> str:
    """BFCL's name of a callee: the attribute chain, plus the root when it is a plain name
    (`x[0].f` is "f", `(lambda: 0)` is "")."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def _call(node: ast.Call, nested: bool = False) -> tuple[str, dict[str, Any]]:
    """A call's name and keywords. BFCL keys a `**` argument by None: kept inside a value
    (JSON writes the key as "null"), refused at the top level (no parameter is named None)."""
    name = call_name(node.func)
    kwargs: dict[Any, Any] = {}
    for kw in node.keywords:
        if kw.arg is None and not nested:
            raise Refused("`**` arguments are not supported; name every argument")
        kwargs[kw.arg] = value(kw.value)  # a repeated name: the last one wins, as in BFCL
    return name, kwargs


def execution_error(kwargs: dict[str, Any]) -> str | None:
    """Why BFCL's multi-turn loop could not turn these arguments back into a call string (it
    then ends the turn), or None. BFCL writes a dict whose values are all dicts as a call of its
    first key and fails on an empty dict reached through dicts (`updates={}`)."""
    pending = list(kwargs.values())
    while pending:
        v = pending.pop()
        if not isinstance(v, dict):
            continue
        if all(isinstance(x, dict) for x in v.values()):
            if not v:
                return "an empty dict argument (BFCL cannot write it back as a call)"
            pending.extend(next(iter(v.values())).values())
        else:
            pending.extend(v.values())
    return None


# --------------------------------------------------------------------------- values
def value(node: ast.expr) -> Any:
    """One argument value, decoded the way BFCL decodes it (module docstring)."""
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        if not isinstance(node.operand, ast.Constant):
            raise DecodeError(f"{_clip(node)}: an operator applies only to a number")
        operand = node.operand.value
        if operand is Ellipsis or not isinstance(operand, (int, float, complex)):
            raise DecodeError(f"{_clip(node)}: an operator applies only to a number")
        return -operand
    if isinstance(node, ast.List):
        return [value(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(value(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        out: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise DecodeError("`**` unpacking inside a dict is not supported")
            key = value(k)
            _require_hashable(key)
            out[key] = value(v)
        return out
    if isinstance(node, ast.BinOp):
        return _compute(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        if not node.keywords:
            return ast.unparse(node)
        name, kwargs = _call(node, nested=True)
        return {name: kwargs}
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value) + "[" + ast.unparse(node.slice) + "]"
    raise DecodeError(f"{_clip(node)}: unsupported value ({type(node).__name__})")


def _require_hashable(key: Any) -> None:
    try:
        hash(key)
    except TypeError:
        raise DecodeError(f"unhashable dict key {key!r}") from None


def _carried(v: Any) -> Any:
    """`v` if JSON can carry it (tuples as lists, keys as text); else the reply is refused."""
    if v is None or isinstance(v, (bool, int, str)):
        if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > MAX_INT_BITS:
            raise Refused("an integer too large to pass on")
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise Refused(f"{v!r} is not a finite number")
        return v
    if isinstance(v, (list, tuple)):
        for item in v:
            _carried(item)
        return v
    if isinstance(v, dict):
        for k, item in v.items():
            _carried(k)
            _carried(item)
        return v
    raise Refused(f"a {type(v).__name__} value cannot be passed on")


# --------------------------------------------------------------------------- arithmetic
def _compute(node: ast.expr) -> Any:
    """What Python gives for an expression of literals (BFCL `eval`s arithmetic arguments).

    Operands may be constants, containers of them and nested operators; a name, a call or any
    other code is refused rather than run. Errors Python would raise (1/0, 'a' - 1) raise."""
    try:
        return _arith(node)
    except DecodeError:
        raise
    except (ArithmeticError, TypeError, ValueError, IndexError, KeyError) as e:
        raise DecodeError(f"{_clip(node)}: {type(e).__name__}: {e}") from None
    except (RecursionError, MemoryError):
        raise Refused(f"{_clip(node)}: too deep or too large to compute") from None


def _arith(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp):
        left, right = _arith(node.left), _arith(node.right)
        _guard(node.op, left, right)
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_arith(node.operand))
    if isinstance(node, ast.List):
        return [_arith(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_arith(e) for e in node.elts)
    if isinstance(node, ast.Set):
        return {_arith(e) for e in node.elts}
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise Refused(f"{_clip(node)}: `**` inside arithmetic is not computed")
        return {_arith(k): _arith(v) for k, v in zip(node.keys, node.values)}  # type: ignore[arg-type]
    if isinstance(node, ast.BoolOp):
        result = _arith(node.values[0])
        for operand in node.values[1:]:
            if isinstance(node.op, ast.And) != bool(result):
                break
            result = _arith(operand)
        return result
    if isinstance(node, ast.Compare):
        left = _arith(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            compare = _COMPARE.get(type(op))
            if compare is None:
                raise Refused(f"{_clip(node)}: `is` comparisons are not computed")
            right = _arith(comparator)
            if not compare(left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _arith(node.body) if _arith(node.test) else _arith(node.orelse)
    raise Refused(f"{_clip(node)}: arithmetic on {type(node).__name__} is not computed (BFCL runs it as code)")


def _guard(op: ast.operator, left: Any, right: Any) -> None:
    """Refuse operations whose result would be huge (BFCL would compute them, or hang)."""
    if isinstance(op, ast.Pow) and _is_int(left) and _is_int(right) and right > 0:
        if abs(left) > 1 and right * math.log2(abs(left)) > MAX_INT_BITS:
            raise Refused("a power too large to compute")
    elif isinstance(op, ast.LShift) and _is_int(left) and _is_int(right):
        if left and right > MAX_INT_BITS:
            raise Refused("a shift too large to compute")
    elif isinstance(op, ast.Mult):
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, (str, bytes, list, tuple)) and _is_int(count):
                if len(seq) * count > MAX_SEQUENCE_LENGTH:
                    raise Refused("a repetition too large to compute")
    elif isinstance(op, ast.Mod) and isinstance(left, (str, bytes)):
        text = left.decode("latin-1") if isinstance(left, bytes) else left
        for spec in _FORMAT_WIDTH.findall(text):
            if "*" in spec or any(len(d) > 5 for d in re.findall(r"\d+", spec)):
                raise Refused("a format width too large to compute")


def _is_int(v: Any) -> bool:
    return isinstance(v, int)
