"""Our checkers against bfcl-eval's own, on perturbed answers generated from every entry.

Single-turn: every entry of every category with answers, the expert's answer and 19 edits of it
plus three random two-edit combinations, each scored by our `check_answer` and by BFCL's
`ast_checker` (see tests/bfcl/reference.py for how it is imported). Multi-turn: a sample of
entries, the ground truth and nine trajectory edits, scored by our env (step by step, as an
agent would play) and by BFCL's `multi_turn_checker` on the same calls. The target is 100%
agreement; the tests print the tallies and fail on any disagreement.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from coevo.envs.bfcl.calls import Call, decode_reply
from coevo.envs.bfcl.scoring import check_answer
from coevo.envs.bfcl.tasks import (
    MULTI_TURN_CATEGORIES,
    SINGLE_TURN_CATEGORIES,
    is_relevance_category,
)
from coevo.envs.bfcl.env import BfclEnv
from coevo.envs.bfcl.expert import TURN_DONE_REPLY, render_calls
from tests.bfcl.perturb import CORRUPTIONS, PERTURBATIONS, Answer, combo, expert_answer
from tests.bfcl.perturb_multi import MULTI_PERTURBATIONS, from_truth
from tests.bfcl.reference import bfcl_multi_turn_valid, bfcl_single_turn_valid

SCORED_SINGLE_TURN = [c for c in SINGLE_TURN_CATEGORIES if not is_relevance_category(c)]


@pytest.fixture(scope="module")
def env() -> BfclEnv:
    return BfclEnv()


def _calls(answer: Answer) -> list[Call]:
    return [Call(name, dict(params)) for call in answer for name, params in call.items()]


def test_single_turn_checker_agrees_with_bfcl_on_perturbed_answers(env: BfclEnv) -> None:
    tally: Counter[tuple[str, bool]] = Counter()
    disagreements = []
    compared = 0
    for category in SCORED_SINGLE_TURN:
        for task_id in env.task_ids(category):
            entry = env.catalog.entry(task_id)
            rng = random.Random(task_id)
            base = expert_answer(entry)
            kinds = [*PERTURBATIONS.items(), *[("combo", combo)] * 3]
            for kind, perturb in kinds:
                answer = perturb(entry, base, rng)
                if answer is None:
                    continue
                ours = check_answer(entry.functions, _calls(answer), entry.answer, category, entry.language).valid
                theirs, _ = bfcl_single_turn_valid(entry.functions, answer, entry.answer, category, entry.language)
                compared += 1
                tally[(kind, theirs)] += 1
                if ours != theirs:
                    disagreements.append((task_id, kind, ours, theirs, answer))
    agreement = 1 - len(disagreements) / compared
    print(f"\nsingle-turn agreement with bfcl-eval: {agreement:.4%} of {compared} answers")
    for (kind, valid), n in sorted(tally.items()):
        print(f"  {kind:18s} {'valid' if valid else 'invalid':8s} {n}")
    assert compared > 25_000
    # the sample must exercise both verdicts on many kinds, or agreement says little
    assert sum(n for (k, v), n in tally.items() if v) > 5_000
    assert sum(n for (k, v), n in tally.items() if not v) > 15_000
    assert not disagreements, disagreements[:5]


def test_underscore_names_agree_with_bfcl(env: BfclEnv) -> None:
    """BFCL's rule for providers whose tool names cannot contain dots: "." becomes "_"."""
    compared = 0
    for category in ("simple_python", "multiple", "parallel_multiple", "live_multiple"):
        for task_id in env.task_ids(category)[:60]:
            entry = env.catalog.entry(task_id)
            dotted = expert_answer(entry)
            underscored = [{n.replace(".", "_"): p for n, p in c.items()} for c in dotted]
            for answer in (dotted, underscored):
                ours = check_answer(entry.functions, _calls(answer), entry.answer, category, entry.language, True).valid
                theirs, _ = bfcl_single_turn_valid(
                    entry.functions, answer, entry.answer, category, entry.language, True
                )
                assert ours == theirs, (task_id, answer)
                compared += 1
    assert compared == 480


def test_corrupted_answers_score_zero(env: BfclEnv) -> None:
    """Wrong name, missing required parameter, wrong value, wrong type, extra call: reward 0
    through the env's text interface (Python syntax; JSON tool calls for Java/JavaScript so a
    wrongly typed value stays wrongly typed)."""
    built: Counter[str] = Counter()
    confirmed: Counter[str] = Counter()
    for category in SCORED_SINGLE_TURN:
        for task_id in env.task_ids(category)[::3]:
            entry = env.catalog.entry(task_id)
            rng = random.Random(f"corrupt-{task_id}")
            base = expert_answer(entry)
            for kind, corrupt in CORRUPTIONS.items():
                answer = corrupt(entry, base, rng)
                if answer is None:
                    continue
                built[kind] += 1
                theirs, _ = bfcl_single_turn_valid(entry.functions, answer, entry.answer, category, entry.language)
                confirmed[kind] += not theirs
                env.reset(task_id=task_id)
                result = env.step(_as_text(answer, entry.language.value))
                assert result.done
                assert result.reward == float(theirs), (task_id, kind, answer, result.info)
    for kind in CORRUPTIONS:
        assert built[kind] > 300, built
        # the corruptions are real: BFCL's own checker rejects (nearly) all of them
        assert confirmed[kind] >= 0.99 * built[kind], (kind, confirmed, built)


def _as_text(answer: Answer, language: str) -> str:
    if language == "python":
        return render_calls(_calls(answer))
    import json

    return json.dumps([{"name": n, "arguments": p} for c in answer for n, p in c.items()])


def test_decoding_the_expert_text_gives_back_the_expert_answer(env: BfclEnv) -> None:
    """The comparisons above feed decoded answers; the text an agent sends decodes to them."""
    for category in SCORED_SINGLE_TURN:
        for task_id in env.task_ids(category)[::7]:
            entry = env.catalog.entry(task_id)
            env.reset(task_id=task_id)
            decoded = decode_reply(env.expert_action() or "", entry.language)
            assert [c.as_bfcl() for c in decoded.calls] == expert_answer(entry)


def test_multi_turn_checker_agrees_with_bfcl_on_perturbed_trajectories(env: BfclEnv) -> None:
    tally: Counter[tuple[str, bool]] = Counter()
    disagreements = []
    fresh = itertools.count()
    for category in MULTI_TURN_CATEGORIES:
        for task_id in env.task_ids(category)[::10]:
            entry = env.catalog.entry(task_id)
            base = from_truth([t.calls for t in env.shared.truth.get(entry)])
            rng = random.Random(task_id)
            for kind, perturb in MULTI_PERTURBATIONS.items():
                trajectory = perturb(base, rng)
                if trajectory is None:
                    continue
                env.reset(task_id=task_id)
                result = None
                for steps in trajectory:
                    for step in steps:
                        result = env.step(render_calls(step))
                        assert not result.done
                    result = env.step(TURN_DONE_REPLY)
                assert result is not None and result.done
                ours = result.reward == 1.0
                decoded = [[[c.render() for c in step] for step in steps] for steps in trajectory]
                theirs = bfcl_multi_turn_valid(decoded, entry.answer, entry, f"agree{next(fresh)}")
                tally[(kind, theirs)] += 1
                if ours != theirs:
                    disagreements.append((task_id, kind, ours, theirs, result.info.get("failures")))
    compared = sum(tally.values())
    print(f"\nmulti-turn agreement with bfcl-eval: {1 - len(disagreements) / compared:.4%} of {compared} trajectories")
    for (kind, valid), n in sorted(tally.items()):
        print(f"  {kind:18s} {'valid' if valid else 'invalid':8s} {n}")
    assert compared > 600
    assert sum(n for (k, v), n in tally.items() if v) > 200
    assert sum(n for (k, v), n in tally.items() if not v) > 200
    assert not disagreements, disagreements[:5]
