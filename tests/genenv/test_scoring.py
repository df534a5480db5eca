"""The agent reward: tool-call parsing and matching, exact match, token F1."""

from __future__ import annotations

import pytest

from coevo.simulator.expert import gold_answer_text
from coevo.simulator.scoring import Unparsed, parse_calls, score, token_f1, values_equal
from coevo.simulator.task_record import SimTask

TOOLS = [
    {"name": "get_weather", "params": ["city", "days", "unit"]},
    {"name": "set_alarm", "params": ["hour", "minute"]},
]


def call_task(*calls: dict, tools: list | None = TOOLS) -> SimTask:
    return SimTask("t", "prompt", list(calls), "tool_call", tools=tools)


WEATHER = {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}


@pytest.mark.parametrize(
    "answer",
    [
        'get_weather(city="Paris", days=3)',
        "get_weather(city='paris', days=3.0)",  # case-insensitive strings, 3 == 3.0
        'get_weather(days=3, city="Paris", unit="celsius")',  # order free, a listed extra parameter tolerated
        'get_weather("Paris", 3)',  # positionals bound by the schema
        '[get_weather(city="Paris", days=3)]',  # BFCL list syntax
        'Sure!\n```python\nget_weather(city="Paris", days=3)\n```',
        'The call is get_weather(city="Paris", days=3)',
        '{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}',
        '{"function": {"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\", \\"days\\": 3}"}}',
    ],
)
def test_right_calls_score_one(answer: str) -> None:
    assert score(call_task(WEATHER), answer) == 1.0


@pytest.mark.parametrize(
    "answer",
    [
        'get_weather(city="Paris")',  # a gold parameter missing
        'get_weather(city="Paris", days=4)',  # wrong value
        'get_weather(city="Paris", days="3")',  # wrong type: no str -> int coercion
        'get_forecast(city="Paris", days=3)',  # wrong name
        "get_weather(city=Paris, days=3)",  # a name, not a literal
        'get_weather("Paris", 3, "c", "x")',  # more positionals than parameters
        'get_weather("Paris", city="Paris", days=3)',  # city given twice
        'get_weather(city="Paris", days=3) and set_alarm(hour=7)',  # an extra call
        "",
        "I cannot do that.",
        'get_weather(city="Paris", days=True)',  # bools are not numbers
        'get_weather(city="Paris", days=3, genre="pop")',  # a parameter the tool does not have
        '{"name": "get_weather", "arguments": {"city": "Paris", "days": 3, "hour": 7}}',
    ],
)
def test_wrong_calls_score_zero(answer: str) -> None:
    assert score(call_task(WEATHER), answer) == 0.0


def test_positionals_need_a_schema() -> None:
    assert score(call_task(WEATHER, tools=None), 'get_weather("Paris", 3)') == 0.0
    assert score(call_task(WEATHER, tools=None), 'get_weather(city="Paris", days=3)') == 1.0


def test_unknown_parameters_are_checked_against_the_listed_signature() -> None:
    """A minimal signature lists only the gold parameters, so inventing the others fails; with
    no schema for the tool, extra parameters cannot be judged and are tolerated."""
    minimal = [{"name": "get_weather", "params": ["city", "days"]}]
    answer = 'get_weather(city="Paris", days=3, unit="celsius")'
    assert score(call_task(WEATHER, tools=minimal), answer) == 0.0
    assert score(call_task(WEATHER, tools=TOOLS), answer) == 1.0
    assert score(call_task(WEATHER, tools=None), answer) == 1.0
    # a schema without "params" lists none, as the validity gate reads it
    ping = {"name": "ping", "arguments": {}}
    assert score(call_task(ping, tools=[{"name": "ping"}]), "ping()") == 1.0
    assert score(call_task(ping, tools=[{"name": "ping"}]), "ping(host=1)") == 0.0


def test_parallel_calls_match_in_any_order() -> None:
    alarm = {"name": "set_alarm", "arguments": {"hour": 7}}
    task = call_task(WEATHER, alarm)
    assert score(task, '[set_alarm(hour=7), get_weather(city="Paris", days=3)]') == 1.0
    assert score(task, '[get_weather(city="Paris", days=3)]') == 0.0
    assert score(task, "[set_alarm(hour=7), set_alarm(hour=7)]") == 0.0
    assert gold_answer_text(task) == '[get_weather(city="Paris", days=3), set_alarm(hour=7)]'


def test_parsing_never_evaluates(tmp_path) -> None:
    marker = tmp_path / "pwned"
    evil = f"__import__('os').system('touch {marker}')"
    calls = parse_calls(evil)
    assert not marker.exists()
    # found as data: two calls with literal string arguments, nothing ran
    assert [(c.name, c.positional) for c in calls] == [("__import__", ["os"]), ("system", [f"touch {marker}"])]
    assert score(call_task({"name": "system", "arguments": {}}, tools=None), evil) == 0.0
    assert isinstance(parse_calls("f(x=open('/etc/passwd').read())")[0].arguments["x"], Unparsed)
    assert isinstance(parse_calls("f(x=1+2)")[0].arguments["x"], Unparsed)
    assert score(call_task({"name": "f", "arguments": {"x": 3}}, tools=None), "f(x=1+2)") == 0.0


def test_value_equality_rules() -> None:
    assert values_equal(3, 3.0) and values_equal(0.1 + 0.2, 0.3)
    assert not values_equal(3, "3") and not values_equal(1, True) and not values_equal(True, 1)
    assert values_equal("New  York", "new york")
    assert values_equal([1, "a"], (1, "A")) and not values_equal([1, 2], [2, 1])
    assert values_equal({"a": [1]}, {"a": [1.0]}) and not values_equal({"a": 1}, {"a": 1, "b": 2})
    assert values_equal(None, None) and not values_equal(None, 0)
    assert not values_equal(1.0, float("nan"))


def test_exact_match_reads_the_final_action() -> None:
    task = SimTask("t", "p", ["go to fridge 1", "open fridge 1"], "exact")
    assert score(task, "go to fridge 1") == 1.0
    assert score(task, "Thought: it is cold there.\nAction: Open Fridge 1.") == 1.0
    assert score(task, "<answer>go to fridge 1</answer>") == 1.0
    assert score(task, "go to fridge 2") == 0.0
    assert score(task, "I would go to fridge 1 first") == 0.0


def test_token_f1() -> None:
    assert token_f1("the Eiffel Tower", "Eiffel tower") == 1.0
    assert token_f1("x y z w", "x y") == pytest.approx(2 * 0.5 * 1.0 / 1.5)
    assert token_f1("paris", "london") == 0.0
    task = SimTask("t", "p", ["Marie Curie", "Curie"], "f1")
    assert score(task, "Answer: Curie") == 1.0
    assert 0 < score(task, "Pierre Curie") < 1


def test_unknown_checker_is_an_error() -> None:
    with pytest.raises(ValueError):
        score(SimTask("t", "p", ["x"], "regex"), "x")
