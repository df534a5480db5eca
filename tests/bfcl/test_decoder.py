"""The default reply decoder against BFCL's own, on the recorded cases of fixtures/decoder_cases.json.

The fixture (written once by tests/bfcl/make_decoder_fixture.py with bfcl-eval 2026.3.23) holds
edge and perturbed replies with what BFCL's `default_decode_ast_prompting` made of each: the
decoded calls, or the exception it raised. Python replies must agree exactly (accepted or not,
same names, same values, same types), except two documented deviations where BFCL accepts and we
refuse: values JSON cannot carry (complex, bytes, infinities, sets, `**` arguments keyed by None)
and arithmetic that BFCL runs as Python code (names and calls inside it). Java and JavaScript
replies are read with tree-sitter (BFCL's pinned versions) and must agree exactly, except where
BFCL keys a positional argument by None (we refuse); the Python-syntax-tree fallback (used when
tree-sitter is missing) must not fall below the figures docs/bfcl.md gives.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from coevo.envs.bfcl import source_calls
from coevo.envs.bfcl.calls import Decoded, decode_reply, decode_source_call_ast
from coevo.envs.bfcl.prompting import execution_error
from coevo.envs.bfcl.tasks import Language
from tests.bfcl.make_decoder_fixture import encode

FIXTURE = Path(__file__).parent / "fixtures" / "decoder_cases.json"
#: Measured agreement of the fallback Java/JavaScript reader (no tree-sitter) with BFCL's
#: tree-sitter parsers, as (cases agreeing, cases) on the fixture (docs/bfcl.md); it may rise,
#: never fall.
FALLBACK_AGREEMENT = {"java": (193, 247), "javascript": (148, 171)}
#: Fixture replies BFCL accepts with a positional argument keyed by None (we refuse them).
POSITIONAL_NONE_KEYS = {"java": 1, "javascript": 2}


@pytest.fixture(scope="module")
def cases() -> list[dict[str, Any]]:
    return json.loads(FIXTURE.read_text())["cases"]


def ours(decoded: Decoded) -> list[list[Any]] | None:
    """Our decoding in the fixture's form; None when the reply (or any call) was refused."""
    if decoded.error is not None or any(c.error for c in decoded.calls):
        return None
    return [[c.name, encode(c.kwargs)] for c in decoded.calls]


def _has_py_value(x: Any) -> bool:
    if isinstance(x, dict):
        if "py" in x:
            return True
        inner = x.get("dict") or x.get("tuple") or []
        return any(_has_py_value(v) for v in inner)
    return isinstance(x, list) and any(_has_py_value(v) for v in x)


def deviation(case: dict[str, Any]) -> str | None:
    """Why we may refuse a reply BFCL accepted (None: we must agree)."""
    calls = case.get("calls")
    if calls is None:
        return None
    if case["family"] == "eval":
        return "code in arithmetic"
    if any(_has_py_value(args) or any(k is None for k, _ in args["dict"]) for _, args in calls):
        return "value JSON cannot carry"
    return None


def test_fixture_is_large_and_varied(cases: list[dict[str, Any]]) -> None:
    python = [c for c in cases if c["language"] == "python"]
    assert len(python) >= 1000
    accepted = sum("calls" in c for c in python)
    assert 0.2 * len(python) < accepted < 0.8 * len(python)  # both verdicts well represented
    assert {c["family"] for c in python} >= {"value", "shape", "packaging", "json", "mutation"}


def test_python_replies_decode_as_bfcl_decodes_them(cases: list[dict[str, Any]]) -> None:
    tally: Counter[str] = Counter()
    wrong: list[tuple[str, Any, Any]] = []
    for case in cases:
        if case["language"] != "python":
            continue
        got = ours(decode_reply(case["reply"]))
        why = deviation(case)
        if why is not None:
            tally[why] += 1
            if got is not None:
                wrong.append((case["reply"], "BFCL-only value decoded", got))
            continue
        expected = case.get("calls")
        tally["agree" if got == expected else "disagree"] += 1
        if got != expected:
            wrong.append((case["reply"], expected if expected is not None else case["error"], got))
    print(dict(tally))
    assert not wrong, wrong[:10]
    assert tally["agree"] >= 1000


def test_multi_turn_refusals_are_bfcls(cases: list[dict[str, Any]]) -> None:
    """BFCL's multi-turn loop writes decoded calls back as code and fails on some (empty dicts);
    `execution_error` must fail on exactly those."""
    checked = failing = 0
    for case in cases:
        if case["language"] != "python" or "calls" not in case or deviation(case):
            continue
        decoded = decode_reply(case["reply"])
        ours_fail = any(execution_error(c.kwargs) for c in decoded.calls)
        assert ours_fail == ("execute_error" in case), case["reply"]
        checked += 1
        failing += ours_fail
    assert checked > 1000 and failing > 10


def _none_keyed(case: dict[str, Any]) -> bool:
    return any(k is None for _, args in case.get("calls") or [] for k, _ in args["dict"])


@pytest.mark.skipif(not source_calls.available(), reason="tree-sitter is not installed (the bfcl extra)")
@pytest.mark.parametrize("language", ["java", "javascript"])
def test_source_languages_decode_as_bfcl_decodes_them(cases: list[dict[str, Any]], language: str) -> None:
    mine = [c for c in cases if c["language"] == language]
    wrong: list[tuple[str, Any, Any]] = []
    refused = 0
    for case in mine:
        got = ours(decode_reply(case["reply"], Language(language)))
        if _none_keyed(case):
            refused += 1
            if got is not None:
                wrong.append((case["reply"], "None-keyed reply decoded", got))
        elif got != case.get("calls"):
            wrong.append((case["reply"], case.get("calls") or case["error"], got))
    print(language, len(mine) - refused - len(wrong), "of", len(mine), "agree;", refused, "None-keyed")
    assert not wrong, wrong[:10]
    assert refused == POSITIONAL_NONE_KEYS[language] and len(mine) > 150
    assert sum("calls" in c for c in mine) > 50  # accepted replies well represented


@pytest.mark.parametrize("language", ["java", "javascript"])
def test_fallback_agreement_is_as_documented(cases: list[dict[str, Any]], language: str) -> None:
    mine = [c for c in cases if c["language"] == language]
    agreeing = [ours(decode_source_call_ast(c["reply"], Language(language))) == c.get("calls") for c in mine]
    print(language, sum(agreeing), "of", len(mine))
    documented, total = FALLBACK_AGREEMENT[language]
    assert len(mine) == total and sum(agreeing) >= documented
    # the expert's answers (recorded for every Java and JavaScript entry) read exactly as BFCL's
    expert = [same for c, same in zip(mine, agreeing) if c["family"] == "expert"]
    assert expert and all(expert)


@pytest.mark.skipif(not source_calls.available(), reason="tree-sitter is not installed (the bfcl extra)")
def test_tree_sitter_rules() -> None:
    java, js = Language.JAVA, Language.JAVASCRIPT
    # outputs of bfcl-eval 2026.3.23 on these replies (run once in its own environment)
    (call,) = decode_reply('Obj.f(a="x y", b=new int[]{1, 2}, d=5, e=1 + 2)', java).calls
    assert (call.name, call.kwargs) == ("Obj.f", {"a": "x y", "b": "new int[]{1,2}", "d": "5", "e": "1+2"})
    (call,) = decode_reply('[f(a="\u00e9", b="x")]', java).calls  # byte offsets sliced from text
    assert call.kwargs == {"a": '\u00e9"', "=": '"'}
    (call,) = decode_reply("[f(a='x', b=[1, 2], c=false)]", js).calls
    assert (call.name, call.kwargs) == ("f", {"a": "x", "b": "[1, 2]", "c": "false"})
    assert decode_reply("[f(a=1, a=2)]", js).error is not None  # repeated name: BFCL raises
    assert decode_reply("[f(x, a=1)]", js).error is not None  # None-keyed: refused
    assert decode_reply("[f(a=1) g(b=2)]", java).error is not None  # syntax error


def test_lenient_decoder_keeps_the_conveniences() -> None:
    fenced = "```python\n[get_weather(city='Paris')]\n```"
    assert not decode_reply(fenced).has_call  # BFCL reads `python [...]` as a subscript
    assert decode_reply(fenced, decoder="lenient").calls[0].kwargs == {"city": "Paris"}
    as_json = '[{"name": "f", "arguments": {"a": 1}}]'
    assert not decode_reply(as_json).has_call
    assert decode_reply(as_json, decoder="lenient").calls[0].as_bfcl() == {"f": {"a": 1}}
    assert decode_reply("[f(from='x')]", decoder="lenient").calls[0].kwargs == {"from": "x"}
    assert decode_reply("[f(from='x')]").error is not None
    with pytest.raises(ValueError):
        decode_reply("[f(a=1)]", decoder="strict")


def test_bfcl_values_without_eval() -> None:
    (call,) = decode_reply("f(unit=units, base=2*5, n=+5, s=x[0], g=g(1), h=h(b=1), e=...)").calls
    assert call.kwargs == {
        "unit": "units",
        "base": 10,
        "n": -5,
        "s": "x[0]",
        "g": "g(1)",
        "h": {"h": {"b": 1}},
        "e": "...",
    }
    assert decode_reply("f(1, x, a=2)").calls[0].kwargs == {"a": 2}  # positional: dropped
    # refused: BFCL would run the code (or fail); nothing here is evaluated
    for reply in (
        "f(a=len('ab')*2)",
        "f(a=__import__('os').getcwd()+'')",
        "f(a=lambda: 1)",
        "f(a=2**10**9)",
        "f(a='x'*10**9)",
        "f(a=1e999)",
        "f(**k)",
        "f(a=1/0)",
    ):
        assert decode_reply(reply).error is not None, reply
