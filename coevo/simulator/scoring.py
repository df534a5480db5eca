"""The agent reward of a generated task, in [0, 1].

- tool_call: the answer's calls are parsed (Python call syntax with `ast`, or JSON tool calls,
  never executed); it scores 1 when there are as many calls as gold calls and each gold call is
  matched by a distinct predicted call with the same name whose arguments include every gold
  parameter with an equal value (positional arguments are bound by the tool's schema). Other
  parameters the listed tool has are tolerated (a full signature lists parameters the request
  leaves open); a parameter it does not have fails the call.
- exact: 1 when the normalised answer (the text after a final "Action:"/"Answer:", if any)
  equals one of the accepted strings.
- f1: SQuAD-style token F1 against the best reference.
"""

from __future__ import annotations

import ast
import json
import math
import re
import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from coevo.envs.bfcl.calls import dotted_name
from coevo.simulator.task_record import SimTask, unknown_parameters

_IDENT_CALL = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\s*\(")
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\n?(.*?)```", re.DOTALL)
_MAX_ANSWER_CHARS = 20_000


class Unparsed:
    """An argument that is not a literal (a name, an expression): equal to nothing."""

    def __init__(self, source: str) -> None:
        self.source = source

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Unparsed({self.source!r})"


@dataclass
class ParsedCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    positional: list[Any] = field(default_factory=list)


# ---------------------------------------------------------------------------- call parsing
def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return Unparsed(ast.unparse(node))


def _from_ast_call(node: ast.Call) -> ParsedCall | None:
    name = dotted_name(node.func)
    if name is None:
        return None
    call = ParsedCall(name)
    for arg in node.args:
        call.positional.append(_literal(arg))
    for kw in node.keywords:
        if kw.arg is None:  # **kwargs
            return None
        call.arguments[kw.arg] = _literal(kw.value)
    return call


def _calls_in_expression(tree: ast.AST) -> list[ParsedCall] | None:
    """A call, or a list/tuple of calls (BFCL's `[f(a=1), g(b=2)]`)."""
    if isinstance(tree, ast.Call):
        call = _from_ast_call(tree)
        return None if call is None else [call]
    if isinstance(tree, (ast.List, ast.Tuple)) and tree.elts and all(isinstance(e, ast.Call) for e in tree.elts):
        calls = [_from_ast_call(e) for e in tree.elts]  # type: ignore[arg-type]
        return None if any(c is None for c in calls) else calls  # type: ignore[return-value]
    return None


def _balanced_end(text: str, open_index: int) -> int | None:
    """Index just past the parenthesis closing the one at `open_index`, skipping string literals."""
    depth, i, quote = 0, open_index, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _json_calls(value: Any) -> list[ParsedCall] | None:
    items = value if isinstance(value, list) else [value]
    calls = []
    for item in items:
        if not isinstance(item, dict):
            return None
        if isinstance(item.get("function"), dict):  # OpenAI tool_calls entries
            item = item["function"]
        name = item.get("name")
        args = item.get("arguments", item.get("parameters", item.get("args", {})))
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except json.JSONDecodeError:
                return None
        if not isinstance(name, str) or not isinstance(args, dict):
            return None
        calls.append(ParsedCall(name, dict(args)))
    return calls or None


def parse_calls(text: str) -> list[ParsedCall]:
    """The tool calls in an answer: the whole answer as a call (list), else JSON, else every
    top-level `name(...)` that parses, left to right. Nothing is evaluated."""
    text = text[:_MAX_ANSWER_CHARS]
    fenced = _FENCE.findall(text)
    body = (fenced[0] if fenced else text).strip()
    try:
        calls = _calls_in_expression(ast.parse(body, mode="eval").body)
        if calls:
            return calls
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    start = min((i for i in (body.find("{"), body.find("[")) if i >= 0), default=-1)
    if start >= 0:
        try:
            value, _ = json.JSONDecoder().raw_decode(body[start:])
            calls = _json_calls(value)
            if calls:
                return calls
        except json.JSONDecodeError:
            pass
    found: list[ParsedCall] = []
    pos = 0
    while True:
        m = _IDENT_CALL.search(body, pos)
        if m is None:
            break
        end = _balanced_end(body, m.end() - 1)
        if end is None:
            break
        snippet = body[m.start() : end]
        try:
            node = ast.parse(snippet, mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pos = m.start() + 1
            continue
        call = _from_ast_call(node) if isinstance(node, ast.Call) else None
        if call is not None:
            found.append(call)
            pos = end
        else:
            pos = m.start() + 1
    return found


# ---------------------------------------------------------------------------- value equality
def _norm_text(value: str) -> str:
    return " ".join(value.strip().casefold().split())


def values_equal(gold: Any, pred: Any) -> bool:
    """Gold against predicted literal: ints and floats compare numerically, strings case- and
    whitespace-insensitively, containers element by element; no other coercion."""
    if isinstance(pred, Unparsed):
        return False
    if isinstance(gold, bool) or isinstance(pred, bool):
        return isinstance(gold, bool) and isinstance(pred, bool) and gold == pred
    if isinstance(gold, (int, float)):
        return (
            isinstance(pred, (int, float))
            and math.isfinite(float(pred))
            and math.isclose(float(gold), float(pred), rel_tol=1e-9, abs_tol=1e-9)
        )
    if isinstance(gold, str):
        return isinstance(pred, str) and _norm_text(gold) == _norm_text(pred)
    if isinstance(gold, (list, tuple)):
        return (
            isinstance(pred, (list, tuple))
            and len(gold) == len(pred)
            and all(values_equal(g, p) for g, p in zip(gold, pred))
        )
    if isinstance(gold, dict):
        return isinstance(pred, dict) and set(gold) == set(pred) and all(values_equal(gold[k], pred[k]) for k in gold)
    if gold is None:
        return pred is None
    return bool(gold == pred)


def bind_arguments(call: ParsedCall, tools: Sequence[dict[str, Any]] | None) -> dict[str, Any] | None:
    """Keyword view of a call: positional arguments bound to the tool's parameter order.
    None when the call cannot be bound: too many positionals, one given twice, or a parameter
    the listed tool does not have (a call that real code would refuse with a TypeError)."""
    args = dict(call.arguments)
    schema = next((t for t in tools or () if t.get("name") == call.name), None)
    if schema is not None and unknown_parameters(schema, args):
        return None
    if not call.positional:
        return args
    if schema is None:
        return None
    params = list(schema.get("params", []))
    if len(call.positional) > len(params):
        return None
    for name, value in zip(params, call.positional):
        if name in args:
            return None
        args[name] = value
    return args


def call_matches(gold: dict[str, Any], pred: ParsedCall, tools: Sequence[dict[str, Any]] | None) -> bool:
    if pred.name != gold["name"]:
        return False
    args = bind_arguments(pred, tools)
    if args is None:
        return False
    return all(k in args and values_equal(v, args[k]) for k, v in gold["arguments"].items())


def score_tool_call(task: SimTask, answer: str) -> float:
    predicted = parse_calls(answer)
    gold_calls: list[dict[str, Any]] = list(task.answer)
    if len(predicted) != len(gold_calls):
        return 0.0
    # Order-free one-to-one matching (gold lists are short; greedy over a bipartite search).
    return 1.0 if _assign(gold_calls, predicted, task.tools) else 0.0


def _assign(golds: list[dict[str, Any]], preds: list[ParsedCall], tools: Sequence[dict[str, Any]] | None) -> bool:
    if not golds:
        return True
    first, rest = golds[0], golds[1:]
    for i, pred in enumerate(preds):
        if call_matches(first, pred, tools) and _assign(rest, preds[:i] + preds[i + 1 :], tools):
            return True
    return False


# ---------------------------------------------------------------------------- text answers
_MARKER = re.compile(r"(?:^|\n)\s*(?:action|answer|final answer)\s*:\s*(.+)", re.IGNORECASE)
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)


def extract_final(answer: str) -> str:
    """The answer proper: inside <answer> tags, after the last "Action:"/"Answer:", or all of it."""
    answer = answer[:_MAX_ANSWER_CHARS]
    tags = _ANSWER_TAG.findall(answer)
    if tags:
        return tags[-1]
    markers = _MARKER.findall(answer)
    if markers:
        return markers[-1].split("\n")[0]
    return answer


def _norm_exact(text: str) -> str:
    text = text.strip().strip("`\"'").strip()
    return " ".join(text.casefold().split()).rstrip(".")


def score_exact(task: SimTask, answer: str) -> float:
    got = _norm_exact(extract_final(answer))
    return 1.0 if any(got == _norm_exact(str(g)) for g in task.answer) else 0.0


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def _f1_tokens(text: str) -> list[str]:
    text = _ARTICLES.sub(" ", text.lower().translate(_PUNCT))
    return text.split()


def token_f1(reference: str, prediction: str) -> float:
    ref, pred = _f1_tokens(reference), _f1_tokens(prediction)
    if not ref or not pred:
        return float(ref == pred)
    common = sum((Counter(ref) & Counter(pred)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def score_f1(task: SimTask, answer: str) -> float:
    got = extract_final(answer)
    return max(token_f1(str(ref), got) for ref in task.answer)


_SCORERS = {"tool_call": score_tool_call, "exact": score_exact, "f1": score_f1}


def score(task: SimTask, answer: str) -> float:
    """The agent reward for `answer` on `task`, in [0, 1]."""
    try:
        scorer = _SCORERS[task.checker]
    except KeyError:
        raise ValueError(f"unknown checker {task.checker!r}") from None
    return float(min(1.0, max(0.0, scorer(task, answer))))
