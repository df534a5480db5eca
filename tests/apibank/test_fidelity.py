"""The official scoring mode reproduces API-Bank's evaluator on recorded cases.

fixtures/original_*.json hold the outputs of the original's own code (evaluator.py with its
ToolManager and the `rouge` package), recorded once by record_original.py on the cases
fidelity_cases.py builds. One file runs everywhere: 627 reply pairs over the env's generated
dialogues, stored with their text (ours), scored by evaluator.py (levels 1-2) and by
lv3_evaluator.py (level 3). The others are built from the shipped dialogues (data
needed; skipped otherwise):

- replies: 9,082 (recorded reply, hypothesis) pairs -> the original's rounded ROUGE-L F;
- calls: 5,137 API-Request lines (the expert's and perturbed ones) -> the original's verdict,
  for every API the original can run offline;
- checks: 4,290 (result, recorded result) pairs -> the original's per-API rule, for all APIs
  (ToolSearcher, Dictionary, Translate and SearchEngine included).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from coevo.envs.apibank.judge import judge_call
from coevo.envs.apibank.reply_score import corrected_rouge_l, official_rouge_l
from coevo.envs.apibank.resources import Resources
from coevo.envs.apibank.sandbox import SandboxSession
from coevo.envs.apibank.scoring import is_correct
from tests.apibank.fidelity_cases import REPLY_RECIPES, call_cases, reply_cases
from tests.apibank.fidelity_fixtures import (
    FIXTURES,
    SAMPLES,
    as_score,
    as_verdict,
    load,
    official_result,
    result_hash,
    shipped_dialogues,
    truth_turn,
)


def test_official_rouge_l_on_generated_replies() -> None:
    """No data needed: the generated dialogues' replies, with their text in the fixture."""
    rows = json.loads((FIXTURES / "original_replies_generated.json").read_text())["cases"]
    assert len(rows) == 627
    wrong = [
        (case_id, level)
        for case_id, reference, hypothesis, *outcomes in rows
        for level, outcome in ((1, outcomes[0]), (3, outcomes[1]))
        if official_rouge_l(reference, hypothesis, level) != as_score(outcome)
    ]
    assert wrong == []
    assert any(corrected_rouge_l(r, h) != as_score(o) for _, r, h, o, _ in rows)
    # The level-3 evaluator drops "AI:" and does not round.
    assert any(o1 != o3 for *_, o1, o3 in rows)


def test_fixtures_cover_every_case(real: Resources) -> None:
    replies, calls = load("original_replies.json"), load("original_calls.json")
    assert {c.id for c in reply_cases(SAMPLES)} == set(replies) and len(replies) == 9082
    assert len(calls) == 5137 and set(calls) <= {c.id for c in call_cases(SAMPLES)}


def test_official_rouge_l_is_the_originals(real: Resources) -> None:
    recorded = load("original_replies.json")
    wrong = [
        (c.id, official_rouge_l(c.reference, c.hypothesis), recorded[c.id])
        for c in reply_cases(SAMPLES)
        if official_rouge_l(c.reference, c.hypothesis) != as_score(recorded[c.id])
    ]
    assert wrong == []


def test_corrected_rouge_l_differs_where_documented(real: Resources) -> None:
    recorded = load("original_replies.json")
    cases = reply_cases(SAMPLES)
    agree = sum(abs(corrected_rouge_l(c.reference, c.hypothesis) - as_score(recorded[c.id])) < 5e-5 for c in cases)
    assert agree < len(cases)
    by_recipe = {c.id.split("|")[1]: recorded[c.id] for c in cases[: len(REPLY_RECIPES)]}
    assert by_recipe["same"] == 1.0 and by_recipe["ai_prefix"] < 1.0  # the original counts "AI:"
    assert by_recipe["dots_only"] == "raises ValueError"  # no sentence: the original stops


def test_official_call_verdicts_are_the_originals(real: Resources) -> None:
    recorded = load("original_calls.json")
    shipped = shipped_dialogues(real)
    wrong = []
    for case in call_cases(SAMPLES):
        if case.id not in recorded:
            continue
        world = SandboxSession(real, case.level)
        verdict = judge_call(case.action, truth_turn(shipped, case), case.level, world, "official")
        if verdict.correct != as_verdict(recorded[case.id]):
            wrong.append((case.id, verdict.correct))
    assert wrong == []


def test_official_rules_are_the_originals(real: Resources) -> None:
    recorded = load("original_checks.json")
    shipped = shipped_dialogues(real)
    seen = 0
    for case in call_cases(SAMPLES):
        if case.id not in recorded:
            continue
        truth = truth_turn(shipped, case)
        verdict, digest = recorded[case.id]
        response: Any = official_result(real, case, truth)
        assert result_hash(response) == digest, f"{case.id}: sandbox result changed, re-record"
        assert is_correct(case.level, case.api_name, response, truth.result or {}, "official") == as_verdict(verdict), (
            case.id
        )
        seen += 1
    for task_id, dialogue in shipped.items():
        for i in dialogue.api_turns:
            turn = dialogue.turns[i]
            verdict, _ = recorded[f"{task_id}:{i}|recorded"]
            assert (
                is_correct(dialogue.level, turn.api_name, turn.result or {}, turn.result or {}, "official") == verdict
            ), (task_id, i)
            seen += 1
    assert seen == len(recorded) == 4290


@pytest.mark.parametrize(
    ("reference", "reply", "official", "corrected"),
    [
        ("Sure, let me check.", "Sure. Let me check.", 0.5, 1.0),
        ("The meeting has been added.", "AI: The meeting has been added.", 0.9091, 1.0),
        ("Done.", "", 0.0, 0.0),
    ],
)
def test_the_issue_examples(reference: str, reply: str, official: float, corrected: float) -> None:
    assert official_rouge_l(reference, reply) == official
    assert corrected_rouge_l(reference, reply) == pytest.approx(corrected)
