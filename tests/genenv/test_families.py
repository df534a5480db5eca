"""Procedural task families and the validity gate."""

from __future__ import annotations

import itertools
import random

import pytest

from coevo.simulator.expert import gold_answer_text
from coevo.simulator.families import get_family
from coevo.simulator.families.function_calling import CATALOG, number_words
from coevo.simulator.scoring import score
from coevo.simulator.task_record import SimTask
from coevo.simulator.validity import InvalidTask, check

FC = get_family("function_calling")
ALL_KNOBS = [dict(zip(FC.knobs, values)) for values in itertools.product(*FC.knobs.values())]


def test_every_knob_setting_makes_valid_tasks() -> None:
    for knobs in ALL_KNOBS:
        for seed in range(3):
            task = FC.generate(knobs, random.Random(seed))
            check(task)
            assert score(task, gold_answer_text(task)) == 1.0


def test_knobs_shape_the_task() -> None:
    for knobs in ALL_KNOBS:
        task = FC.generate(knobs, random.Random(7))
        tool_lines = task.prompt.split("\n\n")[0].splitlines()[1:]
        assert len(tool_lines) == knobs["n_tools"] == len(task.tools)
        (gold,) = task.answer
        assert gold["name"] == knobs["tool"]
        assert len({t["name"] for t in task.tools}) == knobs["n_tools"]
        assert len(gold["arguments"]) == knobs["n_args"]
        target = next(t for t in task.tools if t["name"] == gold["name"])
        if knobs["signature"] == "minimal":
            assert target["params"] == list(gold["arguments"])
        else:
            assert len(target["params"]) == 3
        request = task.prompt.rsplit("Request: ", 1)[1]
        assert (gold["name"] in request) == (knobs["phrasing"] == "explicit")
        ints = [v for v in gold["arguments"].values() if isinstance(v, int)]
        for v in ints:
            assert (number_words(v) in request) == (knobs["numbers"] == "words")


def test_generation_is_deterministic_by_seed() -> None:
    knobs = ALL_KNOBS[17]
    a, b = FC.generate(knobs, random.Random(3)), FC.generate(knobs, random.Random(3))
    assert a == b and a.task_id == b.task_id
    assert FC.generate(knobs, random.Random(4)).task_id != a.task_id


def test_bad_knobs_are_refused() -> None:
    with pytest.raises(ValueError):
        FC.generate({**ALL_KNOBS[0], "n_tools": 99}, random.Random(0))
    with pytest.raises(ValueError):
        FC.generate({**ALL_KNOBS[0], "colour": "red"}, random.Random(0))


def test_number_words() -> None:
    assert [number_words(n) for n in (0, 7, 15, 20, 45, 99, 100, 342)] == [
        "zero",
        "seven",
        "fifteen",
        "twenty",
        "forty-five",
        "ninety-nine",
        "one hundred",
        "three hundred and forty-two",
    ]
    assert len({t.name for t in CATALOG}) == len(CATALOG)


@pytest.mark.parametrize(
    "task,reason",
    [
        (SimTask("t", "", [{"name": "f", "arguments": {}}], "tool_call"), "empty prompt"),
        (SimTask("t", "p", [{"name": "f", "arguments": {}}], "regex"), "unknown checker"),
        (SimTask("t", "p", [], "tool_call"), "non-empty list"),
        (SimTask("t", "p", [{"name": "f g", "arguments": {}}], "tool_call"), "not an identifier"),
        (SimTask("t", "p", [{"name": "f", "arguments": {"x": {1, 2}}}], "tool_call"), "non-literal"),
        (
            SimTask("t", "p", [{"name": "f", "arguments": {}}], "tool_call", tools=[{"name": "g", "params": []}]),
            "not among the task's tools",
        ),
        (
            SimTask(
                "t", "p", [{"name": "f", "arguments": {"y": 1}}], "tool_call", tools=[{"name": "f", "params": ["x"]}]
            ),
            "unknown parameters",
        ),
        (SimTask("t", "p", ["  "], "exact"), "non-empty string"),
        (SimTask("t", "p", [".", "x"], "f1"), "empty answer already scores 1"),
        (SimTask("t", "p", "go north", "exact"), "answer list"),
        (SimTask("t", "p", ["go north"], "exact", choices=["go south", "look"]), "among the task's choices"),
    ],
)
def test_the_gate_rejects_broken_tasks(task: SimTask, reason: str) -> None:
    with pytest.raises(InvalidTask, match=reason):
        check(task)


ALF = get_family("alfworld_step")


def test_alfworld_steps_are_valid_next_commands_for_every_knob_setting() -> None:
    settings = [dict(zip(ALF.knobs, values)) for values in itertools.product(*ALF.knobs.values())]
    for i, knobs in enumerate(settings):
        task = ALF.generate(knobs, random.Random(i))
        check(task)
        assert task.answer[0] in task.choices and task.checker == "exact"
        assert f"Admissible commands: {', '.join(task.choices)}" in task.prompt
        history = task.prompt.split("Your commands so far: ", 1)[1].split("\n", 1)[0]
        assert (history == "none yet.") == (knobs["progress"] == "start")


def test_alfworld_knobs_shape_the_room() -> None:
    small = ALF.generate(
        {"task_type": "pick_and_place_simple", "max_receptacles": 4, "distractors": 0, "progress": "start"},
        random.Random(5),
    )
    large = ALF.generate(
        {"task_type": "pick_and_place_simple", "max_receptacles": 16, "distractors": 8, "progress": "start"},
        random.Random(5),
    )
    go_small = [c for c in small.choices if c.startswith("go to ")]
    go_large = [c for c in large.choices if c.startswith("go to ")]
    assert len(go_small) <= 4 < len(go_large)


def test_arithmetic_values_follow_precedence() -> None:
    from coevo.simulator.families.arithmetic import evaluate

    assert evaluate([2, 3, 4], ["+", "*"]) == 14
    assert evaluate([10, 2, 3], ["-", "*"]) == 4
    assert evaluate([10, 2, 3, 4], ["*", "-", "*"]) == 8
    assert evaluate([7, 5], ["-"]) == 2 and evaluate([1, 2, 3], ["-", "-"]) == -4
    fam = get_family("arithmetic")
    task = fam.generate({"digits": 1, "operands": 2, "operations": "+", "form": "words"}, random.Random(1))
    words = task.prompt.removeprefix("Compute ").split(".")[0].split(" plus ")
    from coevo.simulator.families.function_calling import number_words

    values = [next(n for n in range(10) if number_words(n) == w) for w in words]
    assert task.answer == [str(sum(values))]
    assert score(task, str(sum(values))) == 1.0 and score(task, str(sum(values) + 1)) == 0.0


def test_single_steps_of_registered_envs_become_base_tasks() -> None:
    from coevo.simulator.tasks import build_base_pool

    pool, status = build_base_pool(["bfcl", "alfworld", "no_such_source"], 3, 0)
    assert status["no_such_source"] == "unknown source"
    bfcl = [t for t in pool if t.family == "bfcl.step"]
    alf = [t for t in pool if t.family == "alfworld.step"]
    assert bfcl and alf
    for task in bfcl:
        check(task)
        assert task.checker == "tool_call" and task.prompt.endswith("What is the next action?")
    for task in alf:
        check(task)
        assert task.checker == "exact" and task.answer[0] in task.choices
