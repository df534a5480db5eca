"""Writes tests/bfcl/fixtures/decoder_cases.json: replies and what BFCL's own decoder makes of them.

Run once, in a separate environment that has bfcl-eval 2026.3.23 (with tree_sitter 0.21.3,
tree-sitter-java 0.21.0, tree-sitter-javascript 0.21.4, tenacity, filelock), NOT coevo's venv:

    python tests/bfcl/make_decoder_fixture.py [extra_inputs.json]

`extra_inputs.json` (optional): [[language, reply], ...] more replies to record (the expert's
answers, written by coevo's side). Each case records the reply, the language, the generator
family, and either the decoded calls or the exception class (for Python replies also the
exception, if any, of BFCL's multi-turn `default_decode_execute_prompting`). Values are tagged so that tuples,
non-string keys and values JSON cannot hold survive (`encode`). This script calls BFCL's
decoder; none of BFCL's code is copied here.
"""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "fixtures" / "decoder_cases.json"

# --------------------------------------------------------------------------- Python replies
VALUES = [
    # literals
    "1",
    "0",
    "-1",
    "+1",
    "1.5",
    "-2.5",
    "1e3",
    "1e999",
    "-1e999",
    "0x1f",
    "1_000",
    "5j",
    "-5j",
    "True",
    "False",
    "None",
    "-True",
    "not True",
    "~5",
    "-None",
    "-'a'",
    "...",
    "-...",
    "'x'",
    '"x"',
    "'it''s'",
    '"it\'s"',
    "'a\\'b'",
    "'\\n'",
    "''",
    '"""tri"""',
    "r'\\d+'",
    "b'x'",
    "u'x'",
    "'a' 'b'",
    "'ünï'",
    "'San Francisco, CA'",
    # containers
    "[]",
    "[1, 2]",
    "[1, 'a', None]",
    "[[1], [2, 3]]",
    "()",
    "(1,)",
    "(1, 2)",
    "{}",
    "{'k': 1}",
    "{'k': [1, 2], 'j': {'x': None}}",
    "{1: 'a'}",
    "{(1, 2): 3}",
    "{[1]: 2}",
    "{x: 1}",
    "{'a': 1, 'a': 2}",
    "{**x}",
    "{1, 2}",
    "set()",
    "[-1, -2.5]",
    "[x, y]",
    "(x, 'y')",
    "[*x]",
    "{'k': -1}",
    "[1, [2, [3, [4]]]]",
    "{None: 1}",
    "{True: 1}",
    "{1.5: 2}",
    # bare names, attributes, subscripts
    "units",
    "celsius",
    "x_1",
    "ünits",
    "math.pi",
    "a.b.c",
    "x[0]",
    "x[0][1]",
    "x['k']",
    "x[1:2]",
    "x[::2]",
    "x[1, 2]",
    "x[y[0]]",
    "x.y[0]",
    "[1, 2][0]",
    "'abc'[1]",
    "f(1)[0]",
    # arithmetic
    "2*5",
    "2 * 5",
    "1+1",
    "10-3",
    "7/2",
    "7//2",
    "-7 % 3",
    "2**10",
    "2**-1",
    "1/0",
    "10 % 0",
    "'a'+'b'",
    "'ab'*3",
    "[1]+[2]",
    "[0]*3",
    "(1,)+(2,)",
    "1+2*3",
    "(1+2)*3",
    "-(1+2)",
    "2*-3",
    "1.5*2",
    "1e308*10",
    "1 << 4",
    "256 >> 2",
    "6 & 3",
    "6 | 3",
    "6 ^ 3",
    "True+1",
    "x+1",
    "units*2",
    "1+'a'",
    "[1]*'a'",
    "2 @ 3",
    "'%s!' % 'hi'",
    "'%d-%d' % (1, 2)",
    "(-8) ** 0.5",
    "1j*1j",
    "b'a'+b'b'",
    "{1}|{2}",
    "{'a': 1} | {'b': 2}",
    "(1 < 2) + 1",
    "(1 if 1 else 2) + 1",
    "(0 and 1/0) + 1",
    "(1 or 2) * 3",
    "('a' in 'abc') + 0",
    "None + 1",
    "[...] + [1]",
    "2**0.5",
    "10**20",
    "-2**2",
    "(1, 2) * 2",
    "3 - -3",
    "(lambda: 1) + 1",
    "[1, 2] * 2 + [3]",
    "{'a': 1} + {}",
    # calls as values
    "g()",
    "g(1)",
    "g(1, 'a')",
    "g(x)",
    "g(b=1)",
    "g(1, b=2)",
    "g.h(b=1)",
    "g(b=h(c=1))",
    "g(*x)",
    "g(**k)",
    "g(b=x+1)",
    "g()()",
    "g(b=1)(c=2)",
    # other syntax BFCL cannot decode
    "lambda: 1",
    "lambda x: x",
    "f'{x}'",
    "f'plain'",
    "x if y else z",
    "1 < 2",
    "x and y",
    "not x",
    "[i for i in x]",
    "{i: i for i in x}",
    "(i for i in x)",
    "(x := 1)",
    "await x",
    "*x",
    "x.y",
    "'a'.upper()",
    "'a'.join(b)",
    "yield",
]

# arithmetic BFCL runs as Python code inside its own module (names it defines, builtins): it
# decodes these to a value; we refuse them rather than run code
EVAL_VALUES = [
    "len('ab') * 2",
    "int('3') + 1",
    "max(1, 2) * 2",
    "abs(-2) + 0",
    "str(1) + 'a'",
    "round(2.5) + 0",
    "sum([1, 2]) * 1",
    "len + 1",
    "print + 1",
    "json.dumps(1) + ''",
    "re.escape('a') + 'b'",
    "min([3, 1]) - 1",
    "float('1.5') * 2",
    "list('ab') + []",
    "sorted([2, 1]) + [0]",
    "ord('a') + 0",
    "chr(97) + 'b'",
    "pow(2, 3) + 0",
    "f'{1}' + 'a'",
]

CALL_FORMS = [
    "f(a={v})",
    "[f(a={v})]",
    "[f(x=1, a={v})]",
    "f(a=[{v}])",
    "f(a={{'k': {v}}})",
    "[f(a={v}), g(b=1)]",
]

CALL_SHAPES = [
    "f()",
    "[f()]",
    "f(a=1)",
    "[f(a=1), g(b=2)]",
    "[f(a=1), f(a=2), f(a=3)]",
    "a.b(c=1)",
    "a.b.c.d(e=1)",
    "math.factorial(number=5)",
    "f(1)",
    "f(1, 2)",
    "f(1, a=2)",
    "f(x, a=2)",
    "f(x+1, a=2)",
    "f(lambda: 0, a=1)",
    "f(*args)",
    "f(*args, a=1)",
    "f(**kw)",
    "f(a=1, **kw)",
    "f(**{'a': 1})",
    "f(a=1, a=2)",
    "f(from=1)",
    "f(class_='x')",
    "f(_a=1)",
    "f(ünï=1)",
    "x[0].f(a=1)",
    "a.b[0].c.d(e=1)",
    "(lambda: 0)(a=1)",
    "f(a=1)(b=2)",
    "'s'.upper(a=1)",
    "f()()",
    "f(a=g(b=h(c=1)))",
    "f(a=[g(b=1), h(c=2)])",
    "f(a={'k': g(b=1)})",
    "f(a=1,)",
    "f(a=1, )",
    "f( a = 1 )",
    "f(\na=1,\nb=2\n)",
    "[\n f(a=1),\n g(b=2)\n]",
    "[f(a=1),g(b=2)]",
    "[f(a=1) , g(b=2)]",
    "[f(a=1)] [g(b=2)]",
    "[f(a=1)], [g(b=2)]",
    "[f(a=1)] + [g(b=2)]",
    "[f(a=1)][0]",
    "[[f(a=1)]]",
    "[(f(a=1), g(b=2))]",
    "(f(a=1), g(b=2))",
    "f(a=1), g(b=2)",
    "f(a=1) g(b=2)",
    "f(a=1);g(b=2)",
    "f(a=1)\ng(b=2)",
    "{f(a=1)}",
    "[f]",
    "[1]",
    "[]",
    "[ ]",
    "",
    " ",
    "[None]",
    "['f(a=1)']",
    "f",
    "f(",
    "f(a=)",
    "f(a=1",
    "f a=1)",
    "f(a=1))",
    "[f(a=1)]]",
    "[[f(a=1)]",
    "f(a==1)",
    "f(a=1 b=2)",
    "f(a=1, b=2, c=3, d=4)",
    "get_weather(city='Paris')",
    "get_weather(city=Paris)",
    "get_weather(city='Paris', unit=units)",
    "calculate(base=2*5, height=3)",
    "calc(expr='2*5')",
    "sort('final_report.pdf')",
    "f(a=1) # comment",
    "f(a=1)  # call f",
    "[f(a=1) for _ in x]",
    "[*f(a=1)]",
    "f(a=1) if x else g(b=2)",
    "await f(a=1)",
    "f(a=1).g(b=2)",
    "f(a=1)[0](b=2)",
    "[f(a=1), 'text']",
    "[f(a=1), None]",
    "[f(a=1), g]",
    "f(a=1) and g(b=2)",
]

WRAPPERS = [
    "{c}",
    "[{c}]",
    " {c} ",
    "\n{c}\n",
    "\t{c}\t",
    "\r\n{c}\r\n",
    "`{c}`",
    "``{c}``",
    "```{c}```",
    "```\n{c}\n```",
    "```python\n{c}\n```",
    "```py\n{c}\n```",
    "```json\n{c}\n```",
    "<TOOLCALL>{c}</TOOLCALL>",
    "<TOOLCALL>[{c}]</TOOLCALL>",
    "'{c}'",
    '"{c}"',
    "'[{c}]'",
    "{c};",
    "[{c}];",
    "{c}.",
    "{c},",
    "Answer: {c}",
    "I will call {c}",
    "{c} is the answer",
    "{c}\nDone.",
    "Here you go:\n```\n[{c}]\n```\nDone.",
    "[{c}]\n",
    "\n\n[{c}]\n\n",
    "[ {c} ]",
    "[\n{c}\n]",
    "(({c}))",
    "print({c})",
    "return {c}",
    "{c}\n\n",
]
PACKAGING_BASES = [
    "f(a=1)",
    "get_weather(city='Paris')",
    "f(a=1), g(b='x')",
    "math.hypot(x=3, y=4)",
    "f(a=[1, 2], b={'k': None})",
    "f(a=units)",
    "f(a=2*5)",
]

JSON_REPLIES = [
    '[{"function": "f", "parameters": {"a": 1}}]',
    '{"function": "f", "parameters": {"a": 1}}',
    '[{"name": "f", "arguments": {"a": 1}}]',
    '{"name": "f", "arguments": "{\\"a\\": 1}"}',
    '{"type": "function", "function": {"name": "f", "arguments": {"a": 1}}}',
    '{"tool_calls": [{"name": "f", "arguments": {}}]}',
    '[{"f": {"a": 1}}]',
    '{"f": {"a": 1}}',
    '[{"name": "f", "arguments": {"a": true, "b": null}}]',
    "[]",
    "{}",
    "[1, 2]",
    '"f(a=1)"',
    '[{"function": "f", "parameters": {"a": 1}}, {"function": "g", "parameters": {}}]',
    '```json\n[{"name": "f", "arguments": {"a": 1}}]\n```',
]

PROSE = [
    "None of the provided functions can be used to answer this request.",
    "I have completed the requested operations.",
    "I cannot complete this request: a required function or piece of information is missing.",
    "hello",
    "The answer is 42",
    "Sure!",
    "I need more information (the city).",
    "ok.",
    "No function call is needed.",
    "f(a=1) is what I would call",
    "Let me think. f(a=1)",
]

# --------------------------------------------------------------------------- Java / JavaScript
JAVA_VALUES = [
    '"x"',
    '"a b"',
    '"x\\ny"',
    '"it\'s"',
    "'c'",
    "1",
    "12",
    "-1",
    "1.5",
    "5L",
    "1.5f",
    "2.0d",
    "true",
    "false",
    "null",
    "myVar",
    "a.b",
    "new int[]{1, 2}",
    'new String[]{"a", "b"}',
    "new ArrayList<>()",
    'new ArrayList<>(Arrays.asList("a", "b"))',
    "new HashMap<>()",
    'new HashMap<String, Object>() {{ put("k", 1); }}',
    "[1, 2]",
    "{1, 2}",
    "1 + 2",
    "x.y()",
    "Math.max(1, 2)",
    "String.class",
    "new Object()",
    '""',
    "'x'",
    "MyEnum.VALUE",
]
JS_VALUES = [
    '"x"',
    "'x'",
    '"a b"',
    "'it\\'s'",
    '"x\\ny"',
    "1",
    "-1",
    "1.5",
    "5n",
    "true",
    "false",
    "null",
    "undefined",
    "myVar",
    "a.b",
    "[1, 2]",
    '["a", "b"]',
    "{a: 1}",
    '{"a": 1, b: [2]}',
    "() => 1",
    "function() {}",
    "1 + 2",
    "`tmpl`",
    "new Date()",
    "x.y()",
    "[]",
    "{}",
]
JAVA_SHAPES = [
    "[f({a})]",
    "[f(x={a}, a={a})]",
    '[f(a={a}, b="y")]',
    '[f(a={a}, b="y", c="z")]',
]
JS_SHAPES = ["[f(a={a})]", "[f(x=1, a={a})]", "f(a={a})", "[obj.f(a={a})]"]
JAVA_EXTRA = [
    '[f(a="1"), g(b="2")]',
    '[f(a="1", b="2"), g(c="3", d="4")]',
    "[]",
    "[hello]",
    "[f(1, 2)]",
    "[f(x, y)]",
    "[f(a=x, a=y)]",
    '[A.b.f(a="1", b="2")]',
    '[f(from="1", to="2")]',
    'f(a="1", b="2")',
    '```\n[f(a="1", b="2")]\n```',
    "[f()]",
    '[f(a="1", b="2");]',
    '[{"name": "f", "arguments": {"a": "1"}}]',
    "None of the functions applies.",
]
JS_EXTRA = [
    "[f(a=1), g(b=2)]",
    "[f(x)]",
    "[f(true)]",
    "[f(1)]",
    "[]",
    "[hello]",
    "[f(a=1, a=2)]",
    "[f()]",
    "f(a='x')",
    "```\n[f(a=1)]\n```",
    '[{"name": "f", "arguments": {"a": "1"}}]',
    "None of the functions applies.",
    "[f(a=1);]",
    "[f(from=1, to=2)]",
]


def mutations(rng: random.Random, base: str, n: int) -> list[str]:
    """Random one-character edits of a reply (deletions, insertions, swaps)."""
    alphabet = list("()[]{},=.'\"` \n:;*+-_0aZ") + ["\\"]
    out = []
    for _ in range(n):
        chars = list(base)
        i = rng.randrange(len(chars) + 1)
        kind = rng.randrange(3)
        if kind == 0 and chars:
            del chars[min(i, len(chars) - 1)]
        elif kind == 1:
            chars.insert(i, rng.choice(alphabet))
        elif chars:
            j = min(i, len(chars) - 1)
            chars[j] = rng.choice(alphabet)
        out.append("".join(chars))
    return out


RANDOM_ATOMS = [
    "1",
    "-2",
    "2.5",
    "'s'",
    '"t"',
    "True",
    "None",
    "x",
    "...",
    "1e999",
    "5j",
    "b'b'",
    "+3",
    "not 1",
    "~2",
    "-True",
    "-'a'",
]


def random_value(rng: random.Random, depth: int = 0) -> str:
    """A random nested value: containers, arithmetic, calls, subscripts, comparisons."""
    if depth > 3 or rng.random() < 0.35:
        return rng.choice(RANDOM_ATOMS)
    kind = rng.randrange(9)
    inner = [random_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    a, b = random_value(rng, depth + 1), random_value(rng, depth + 1)
    if kind == 0:
        return "[" + ", ".join(inner) + "]"
    if kind == 1:
        return "(" + ", ".join(inner) + ",)"
    if kind == 2:
        return "{" + ", ".join(f"{v}: {random_value(rng, depth + 1)}" for v in inner) + "}"
    if kind == 3:
        op = rng.choice(["+", "-", "*", "/", "//", "%", "**", "<<", "&", "|", "^", "@"])
        return f"({a} {op} {b})"
    if kind == 4:
        return f"g({a})"
    if kind == 5:
        return f"g(b={a})"
    if kind == 6:
        return f"{rng.choice(['x', 'a.b', 'g()'])}[{a}]"
    if kind == 7:
        return f"({a} {rng.choice(['<', '==', 'in', 'and', 'or'])} {b})"
    return f"-({a})"


def python_cases() -> list[tuple[str, str, str]]:
    cases: list[tuple[str, str, str]] = []  # (family, language, reply)
    for v in VALUES:
        for form in CALL_FORMS:
            cases.append(("value", "python", form.format(v=v)))
    for v in EVAL_VALUES:
        for form in CALL_FORMS[:2]:
            cases.append(("eval", "python", form.format(v=v)))
    cases += [("shape", "python", c) for c in CALL_SHAPES]
    for base in PACKAGING_BASES:
        cases += [("packaging", "python", w.format(c=base)) for w in WRAPPERS]
    cases += [("json", "python", c) for c in JSON_REPLIES]
    cases += [("prose", "python", c) for c in PROSE]
    rng = random.Random(21)
    for base in (
        "[f(a=1, b='x')]",
        "get_weather(city='Paris', unit=units)",
        "[f(a=[1, 2]), g(b={'k': 2*5})]",
        "f(a=-1.5, b=None, c=True)",
    ):
        cases += [("mutation", "python", m) for m in mutations(rng, base, 40)]
    for _ in range(600):
        calls = [f"f{i}(a={random_value(rng)}, b={random_value(rng)})" for i in range(rng.randrange(1, 3))]
        cases.append(("random", "python", "[" + ", ".join(calls) + "]"))
    return cases


def source_cases() -> list[tuple[str, str, str]]:
    cases = []
    for v in JAVA_VALUES:
        cases += [("java", "java", s.format(a=v)) for s in JAVA_SHAPES]
    cases += [("java", "java", s) for s in JAVA_EXTRA]
    for v in JS_VALUES:
        cases += [("javascript", "javascript", s.format(a=v)) for s in JS_SHAPES]
    cases += [("javascript", "javascript", s) for s in JS_EXTRA]
    return cases


# --------------------------------------------------------------------------- recording
def encode(v: Any) -> Any:
    """A decoded value as JSON: tuples and dicts tagged, anything JSON lacks as its repr."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else {"py": repr(v)}
    if isinstance(v, list):
        return [encode(x) for x in v]
    if isinstance(v, tuple):
        return {"tuple": [encode(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[encode(k), encode(x)] for k, x in v.items()]}
    return {"py": repr(v)}


def well_formed(out: Any) -> bool:
    """BFCL's check after decoding: a list of {name: {param: value}}."""
    return isinstance(out, list) and all(
        type(i) is dict and len(i) == 1 and type(next(iter(i.values()))) is dict for i in out
    )


def record(family: str, language: str, reply: str) -> dict[str, Any]:
    from bfcl_eval.constants.enums import ReturnFormat
    from bfcl_eval.model_handler.utils import default_decode_ast_prompting

    fmt = {"python": ReturnFormat.PYTHON, "java": ReturnFormat.JAVA, "javascript": ReturnFormat.JAVASCRIPT}[language]
    case: dict[str, Any] = {"family": family, "language": language, "reply": reply}
    try:
        out = default_decode_ast_prompting(reply, fmt)
    except Exception as e:  # noqa: BLE001 - BFCL raises anything; the class is the record
        case["error"] = type(e).__name__
        return case
    if not well_formed(out):
        case["error"] = "wrong_output_format"
        case["output"] = repr(out)
        return case
    case["calls"] = [[name, encode(args)] for item in out for name, args in item.items()]
    if language == "python":  # multi-turn: BFCL turns the calls back into code to run them
        from bfcl_eval.model_handler.utils import default_decode_execute_prompting

        try:
            default_decode_execute_prompting(reply)
        except Exception as e:  # noqa: BLE001
            case["execute_error"] = type(e).__name__
    return case


def main() -> None:
    cases = python_cases() + source_cases()
    if len(sys.argv) > 1:
        extra = json.loads(Path(sys.argv[1]).read_text())
        cases += [("expert", lang, reply) for lang, reply in extra]
    seen: set[tuple[str, str]] = set()
    records = []
    for family, language, reply in cases:
        if (language, reply) in seen:
            continue
        seen.add((language, reply))
        records.append(record(family, language, reply))
    import bfcl_eval  # noqa: F401

    doc = {
        "source": "bfcl-eval 2026.3.23, model_handler.utils.default_decode_ast_prompting "
        f"(Python {sys.version.split()[0]}; tree_sitter 0.21.3, java 0.21.0, javascript 0.21.4)",
        "cases": records,
    }
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"{len(records)} cases -> {OUT} ({OUT.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
