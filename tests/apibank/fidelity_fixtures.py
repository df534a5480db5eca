"""Making and reading the fidelity fixtures: API-Bank's evaluator outputs on recorded cases.

    python -m tests.apibank.fidelity_fixtures dump CASES.json       # inputs, for the original
    python record_original.py CASES.json ORIGINAL/api-bank OUT.json  # in the original's venv
    python -m tests.apibank.fidelity_fixtures build OUT.json         # -> fixtures/*.json
    python -m tests.apibank.fidelity_fixtures agreement              # figures for docs/apibank.md

The fixtures store outcomes only, keyed by turn (`<task id>:<turn>`) and recipe; the texts come
back from the data folder through `fidelity_cases`. A `checks` outcome also stores a short hash
of the result coevo's sandbox produced, so a sandbox change that would make it stale shows up.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from coevo.envs.apibank.modes import MODES
from coevo.envs.apibank.parsing import parse_api_call
from coevo.envs.apibank.reply_score import rouge_l
from coevo.envs.apibank.resources import Resources, build_resources
from coevo.envs.apibank.sandbox import SandboxSession
from coevo.envs.apibank.tasks import Dialogue, Turn
from tests.apibank.conftest import DATA_DIR
from tests.apibank.fidelity_cases import CallCase, ReplyCase, call_cases, reply_cases, reply_cases_of

FIXTURES = Path(__file__).parent / "fixtures"
SAMPLES = DATA_DIR / "lv1-lv2-samples"
#: Calls the original cannot run offline (sentence encoder download, web services, NLTK punkt
#: download): only their rules are recorded, on results of coevo's sandbox.
RULE_ONLY = frozenset({"ToolSearcher", "Dictionary", "Translate", "SearchEngine"})
ORIGINAL = "AlibabaResearch/DAMO-ConvAI@483554e, api-bank/ (evaluator.py, tool_manager.py, apis/)"


def split_id(case_id: str) -> tuple[str, str]:
    turn, recipe = case_id.split("|")
    return turn, recipe


def grouped(outcomes: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for case_id, outcome in outcomes.items():
        turn, recipe = split_id(case_id)
        out.setdefault(turn, {})[recipe] = outcome
    return out


def flat(groups: dict[str, dict[str, Any]]) -> Iterator[tuple[str, Any]]:
    for turn, by_recipe in groups.items():
        for recipe, outcome in by_recipe.items():
            yield f"{turn}|{recipe}", outcome


def result_hash(result: Any) -> str:
    text = json.dumps(result, sort_keys=True, default=repr)
    return hashlib.sha1(text.encode()).hexdigest()[:10]


def truth_turn(shipped: dict[str, Dialogue], case: CallCase) -> Turn:
    return shipped[case.task_id].turns[case.turn]


def official_result(resources: Resources, case: CallCase, truth: Turn) -> dict[str, Any] | None:
    """The result the official mode's call produces, when a rule gets to judge it."""
    parsed = parse_api_call(case.action)
    if parsed is None or parsed.name != truth.api_name:
        return None
    outcome = SandboxSession(resources, case.level, parse_lists=False).call(parsed.name, parsed.arguments)
    return outcome.result if outcome.valid else None


def shipped_dialogues(resources: Resources) -> dict[str, Dialogue]:
    return {d.task_id: d for level in resources.shipped for d in resources.shipped[level]}


def dump(out: str) -> None:
    resources = build_resources(DATA_DIR)
    shipped = shipped_dialogues(resources)
    raw = {
        name: [
            json.loads(line)
            for line in (SAMPLES / sub / f"{name.split('-', 1)[1]}.jsonl").read_text().splitlines()
            if line.strip()
        ]
        for name, sub in (
            (d.task_id, "level-1-given-desc" if d.level == 1 else "level-2-toolsearcher") for d in shipped.values()
        )
    }
    calls, checks = [], []
    for case in call_cases(SAMPLES):
        truth = truth_turn(shipped, case)
        if case.api_name not in RULE_ONLY:
            calls.append({"id": case.id, "action": case.action, "truth": raw[case.task_id][case.turn]})
        result = official_result(resources, case, truth)
        if result is not None:
            checks.append(
                {
                    "id": case.id,
                    "api_name": case.api_name,
                    "response": result,
                    "truth": truth.result,
                    "hash": result_hash(result),
                }
            )
    for dialogue in shipped.values():  # each rule on its own recorded result
        for i in dialogue.api_turns:
            turn = dialogue.turns[i]
            checks.append(
                {
                    "id": f"{dialogue.task_id}:{i}|recorded",
                    "api_name": turn.api_name,
                    "response": turn.result,
                    "truth": turn.result,
                    "hash": result_hash(turn.result),
                }
            )
    replies = [
        {"id": c.id, "reference": c.reference, "hypothesis": c.hypothesis}
        for c in reply_cases(SAMPLES) + generated_reply_cases()
    ]
    Path(out).write_text(json.dumps({"replies": replies, "calls": calls, "checks": checks}))
    print(f"{len(replies)} replies, {len(calls)} calls, {len(checks)} checks -> {out}")


def generated_reply_cases(dialogues: int = 40, every: int = 3) -> list[ReplyCase]:
    """Reply cases over the env's own generated dialogues (built-in databases: no benchmark
    text), every `every`-th kept; their fixture stores the text, so it runs without the data."""
    from coevo.envs.apibank.env import decision_points
    from coevo.envs.registry import make

    env: Any = make("apibank", train_size=dialogues, test_size=1)
    turns = []
    for task_id in env.task_ids("train"):
        dialogue = env.shared.dialogue(task_id)
        turns += [
            (f"{task_id}:{i}", dialogue.turns[i].text)
            for i in decision_points(dialogue)
            if dialogue.turns[i].role == "AI"
        ]
    return reply_cases_of(turns)[::every]


def build(recorded_path: str, cases_path: str) -> None:
    recorded = json.loads(Path(recorded_path).read_text())
    cases = json.loads(Path(cases_path).read_text())
    hashes = {c["id"]: c["hash"] for c in cases["checks"]}
    FIXTURES.mkdir(exist_ok=True)
    meta = {"original": ORIGINAL, "rouge": "rouge==1.0.1"}
    generated = {c["id"]: c for c in cases["replies"] if c["id"].startswith("gen-")}
    (FIXTURES / "original_replies_generated.json").write_text(
        json.dumps(
            {
                "meta": meta,
                "columns": ["id", "reference", "hypothesis", "evaluator.py", "lv3_evaluator.py"],
                "cases": [
                    [
                        case_id,
                        c["reference"],
                        c["hypothesis"],
                        recorded["replies"][case_id],
                        recorded["replies_lv3"][case_id],
                    ]
                    for case_id, c in generated.items()
                ],
            },
            separators=(",", ":"),
        )
        + "\n"
    )
    files = {
        "original_replies.json": grouped({k: v for k, v in recorded["replies"].items() if k not in generated}),
        "original_calls.json": grouped(recorded["calls"]),
        "original_checks.json": grouped({k: [v, hashes[k]] for k, v in recorded["checks"].items()}),
    }
    for name, groups in files.items():
        (FIXTURES / name).write_text(
            json.dumps({"meta": meta, "cases": groups}, separators=(",", ":"), sort_keys=True) + "\n"
        )


def load(name: str) -> dict[str, Any]:
    return dict(flat(json.loads((FIXTURES / name).read_text())["cases"]))


def as_verdict(outcome: Any) -> bool:
    """A recorded call outcome as a verdict: where the original raised, the call is wrong."""
    return outcome is True


def as_score(outcome: Any) -> float:
    return 0.0 if isinstance(outcome, str) else float(outcome)


def agreement() -> dict[str, Any]:
    """Agreement of each mode with the recorded outcomes, and the ground truth's call score."""
    from coevo.envs.apibank.judge import judge_call
    from coevo.envs.apibank.scoring import is_correct

    resources = build_resources(DATA_DIR)
    shipped = shipped_dialogues(resources)
    out: dict[str, Any] = {}
    replies = load("original_replies.json")
    cases = [c for c in reply_cases(SAMPLES) if c.id in replies]
    for mode in MODES:
        diffs = [abs(rouge_l(c.reference, c.hypothesis, mode) - as_score(replies[c.id])) for c in cases]
        out[f"replies_{mode}"] = {
            "n": len(diffs),
            "agree_4dp": sum(d < 5e-5 for d in diffs),
            "mean_abs_diff": round(sum(diffs) / len(diffs), 4),
        }
    calls = load("original_calls.json")
    call_list = [c for c in call_cases(SAMPLES) if c.id in calls]
    for mode in MODES:
        agree = 0
        for case in call_list:
            truth = truth_turn(shipped, case)
            world = _world_before(resources, shipped[case.task_id], case.turn)
            verdict = judge_call(case.action, truth, case.level, world, mode)
            agree += verdict.correct == as_verdict(calls[case.id])
        out[f"calls_{mode}"] = {"n": len(call_list), "agree": agree}
    checks = load("original_checks.json")
    check_list = [(c, truth_turn(shipped, c)) for c in call_cases(SAMPLES) if c.id in checks]
    responses: list[tuple[Any, Turn]] = [(official_result(resources, c, t), t) for c, t in check_list]
    responses += [(t.result, t) for d in shipped.values() for t in (d.turns[i] for i in d.api_turns)]
    recorded_checks = [checks[c.id][0] for c, _ in check_list] + [
        checks[f"{d.task_id}:{i}|recorded"][0] for d in shipped.values() for i in d.api_turns
    ]
    levels = [c.level for c, _ in check_list] + [d.level for d in shipped.values() for _ in d.api_turns]
    for mode in MODES:
        agree = sum(
            is_correct(level, t.api_name, r or {}, t.result or {}, mode) == as_verdict(v)
            for (r, t), v, level in zip(responses, recorded_checks, levels)
        )
        out[f"checks_{mode}"] = {"n": len(responses), "agree": agree}
    out["ground_truth"] = ground_truth_scores(resources)
    return out


def _world_before(resources: Resources, dialogue: Dialogue, upto: int) -> SandboxSession:
    """The episode's sandbox at turn `upto`: the earlier ground-truth calls executed in order."""
    from coevo.envs.apibank.sandbox import hints_from_record

    world = SandboxSession(resources, dialogue.level)
    for i in dialogue.api_turns:
        if i >= upto:
            break
        turn = dialogue.turns[i]
        world.call(turn.api_name, turn.param_dict, hints_from_record(turn.api_name, turn.result))
    return world


def ground_truth_scores(resources: Resources) -> dict[str, Any]:
    """API accuracy of the expert (the recorded calls) over the shipped dialogues, per mode."""
    from coevo.envs.registry import make

    scores: dict[str, Any] = {}
    for mode in MODES:
        env: Any = make("apibank", data_dir=str(DATA_DIR), scoring=mode)
        calls = correct = 0
        for split in ("level1", "level2"):
            for task_id in env.task_ids(split):
                env.reset(task_id=task_id)
                done = False
                while not done:
                    result = env.step(env.expert_action())
                    done = result.done
                    if result.info["kind"] == "api":
                        calls += 1
                        correct += int(result.info["correct"])
        scores[mode] = {"calls": calls, "correct": correct, "accuracy": round(correct / calls, 4)}
    return scores


def main(argv: list[str]) -> None:
    command = argv[0] if argv else ""
    if command == "dump" and len(argv) == 2:
        dump(argv[1])
    elif command == "build" and len(argv) == 3:
        build(argv[1], argv[2])
    elif command == "agreement":
        print(json.dumps(agreement(), indent=1))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
