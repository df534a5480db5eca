"""Java and JavaScript replies read with tree-sitter, following BFCL's rules (our own walk).

BFCL (bfcl-eval 2026.3.23) strips and brackets a Java/JavaScript reply like a Python one, drops
the first and last character again, parses the rest with tree-sitter (the versions it pins:
tree-sitter 0.21.3, tree-sitter-java 0.21.0, tree-sitter-javascript 0.21.4) and fails when the
tree's printout names an ERROR node. Then it takes one call:

* Java: the first `method_invocation` in a pre-order walk; its name is `object.name`. Each
  `assignment_expression` argument (`=`, and `+=` and the like too) gives `left: value`, where a
  string or character literal loses its quotes and any other value is its tokens joined without
  the whitespace between them (`{1, 2}` gives "{1,2}"), except `new T[]{...}` and `new T(a, b)`,
  which are rebuilt with one space. Node text is sliced from the reply by *byte* offsets (so
  text after a non-ASCII character shifts, as in BFCL).
* JavaScript: the first `call_expression` directly inside a top-level expression statement;
  each `assignment_expression` argument gives `left: right's source text`, one pair of matching
  quotes removed.

In both, an argument that is a bare identifier (Java: also a class literal; JavaScript: also
`true`) is keyed by None and a repeated key fails the reply; other positional arguments are
dropped. No call found fails the reply. BFCL keeps a None key; we refuse such replies (no
parameter is named None; docs/bfcl.md counts them).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from typing import Any

#: The modules this reader needs (the `bfcl` extra pins them to BFCL's versions).
REQUIRED = ("tree_sitter", "tree_sitter_java", "tree_sitter_javascript")


class SourceDecodeError(ValueError):
    """BFCL's Java/JavaScript parser raises on this reply (or returns no call)."""


class PositionalRefused(SourceDecodeError):
    """BFCL accepts this reply but keys a positional argument by None; we refuse it."""


def available() -> bool:
    """Whether tree-sitter and both grammars are importable."""
    try:
        for name in REQUIRED:
            importlib.import_module(name)
    except ImportError:
        return False
    return True


@cache
def _parser(grammar: str) -> Any:
    """A tree-sitter parser for "java" or "javascript" (tree-sitter 0.21 and 0.22+ APIs)."""
    import tree_sitter

    module = importlib.import_module(f"tree_sitter_{grammar}")
    if hasattr(tree_sitter.Parser, "set_language"):  # 0.21: Language(pointer, name), set_language
        parser = tree_sitter.Parser()
        parser.set_language(tree_sitter.Language(module.language(), grammar))
        return parser
    return tree_sitter.Parser(tree_sitter.Language(module.language()))  # type: ignore[call-arg]


def _printout(node: Any) -> str:
    """The tree as tree-sitter prints it (`sexp()` before 0.22, `str()` after)."""
    sexp = getattr(node, "sexp", None)
    return str(sexp()) if callable(sexp) else str(node)


def _tree(source: str, grammar: str) -> Any:
    try:
        data = source.encode("utf-8")
    except UnicodeEncodeError:
        raise SourceDecodeError("the reply is not valid UTF-8 text") from None
    root = _parser(grammar).parse(data).root_node
    if "ERROR" in _printout(root):
        raise SourceDecodeError(f"not a {grammar} function call (tree-sitter reports a syntax error)")
    return root


def _add(args: dict[Any, Any], key: Any, value: str) -> None:
    if key in args:
        raise SourceDecodeError(f"argument {key!r} is given twice" if key is not None else "two positional names")
    args[key] = value


def _finish(name: str, args: dict[Any, Any]) -> tuple[str, dict[str, Any]]:
    if None in args:
        raise PositionalRefused("a positional argument (BFCL keys it by None); name every argument")
    return name, args


# --------------------------------------------------------------------------- Java
def decode_java(body: str) -> tuple[str, dict[str, Any]]:
    """The one call BFCL reads from a Java reply already stripped of its brackets."""
    root = _tree(body, "java")

    def text(node: Any) -> str:
        if node is None:
            raise SourceDecodeError("an incomplete expression")
        return body[node.start_byte : node.end_byte]  # byte offsets on text: BFCL's slicing

    def value(node: Any, nested: bool) -> str:
        if node is None:
            raise SourceDecodeError("an incomplete expression")
        kind = node.type
        if kind in ("string_literal", "character_literal"):
            return text(node) if nested else text(node)[1:-1]
        if kind in ("identifier", "class_literal", "type_identifier", "method_invocation"):
            return text(node)
        if kind == "array_creation_expression":
            element = value(node.child_by_field_name("type"), True)
            return f"new {element}[]{value(node.child_by_field_name('value'), True)}"
        if kind == "object_creation_expression":
            created = value(node.child_by_field_name("type"), True)
            arguments = node.child_by_field_name("arguments")
            if arguments is None:
                return f"new {created}()"
            items = [value(c, True) for c in arguments.children if c.type not in (",", "(", ")")]
            return f"new {created}({', '.join(items)})"
        if node.child_count > 0:
            return "".join(value(c, True) for c in node.children)
        return text(node)

    def first_call(node: Any) -> Any:
        if node.type == "method_invocation":
            return node if node.child_by_field_name("arguments") is not None else None
        for child in node.children:
            found = first_call(child)
            if found is not None:
                return found
        return None

    try:
        call = first_call(root)
        if call is None:
            raise SourceDecodeError("no Java method call found")
        name = text(call.child_by_field_name("name"))
        owner = call.child_by_field_name("object")
        if owner is not None:
            name = f"{text(owner)}.{name}"
        args: dict[Any, Any] = {}
        for child in call.child_by_field_name("arguments").children:
            if child.type == "assignment_expression":
                _add(args, text(child.children[0]), value(child.children[2], False))
            elif child.type in ("identifier", "class_literal"):
                _add(args, None, value(child, False))
    except RecursionError:
        raise SourceDecodeError("the reply is nested too deeply") from None
    except IndexError:
        raise SourceDecodeError("an incomplete argument") from None
    return _finish(name, args)


# --------------------------------------------------------------------------- JavaScript
def decode_javascript(body: str) -> tuple[str, dict[str, Any]]:
    """The one call BFCL reads from a JavaScript reply already stripped of its brackets."""
    root = _tree(body, "javascript")

    def text(node: Any) -> str:
        return bytes(node.text).decode("utf-8")

    for statement in root.children:
        if statement.type != "expression_statement":
            continue
        for call in statement.children:
            if call.type != "call_expression":
                continue
            args: dict[Any, Any] = {}
            if len(call.children) < 2:
                raise SourceDecodeError("an incomplete call")
            for child in call.children[1].children:
                if child.type == "assignment_expression":
                    if len(child.children) < 3:
                        raise SourceDecodeError("an incomplete argument")
                    spelled = text(child.children[2])
                    if len(spelled) >= 1 and spelled[0] == spelled[-1] and spelled[0] in "\"'":
                        spelled = spelled[1:-1]
                    _add(args, text(child.children[0]), spelled)
                elif child.type in ("identifier", "true"):
                    _add(args, None, text(child))
            return _finish(text(call.children[0]), args)
    raise SourceDecodeError("no JavaScript function call found")


DECODERS: dict[str, Callable[[str], tuple[str, dict[str, Any]]]] = {
    "java": decode_java,
    "javascript": decode_javascript,
}
