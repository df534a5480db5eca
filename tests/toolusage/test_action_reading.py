"""Reading `Action: X with Action Input: Y` as AgentGym's tool servers do, with a literal-only
reader in place of their `eval` (envs/toolusage/action.py, literal.py)."""

from __future__ import annotations

import pytest

from coevo.envs.toolusage.action import ActionInputError, parse_line, server_line
from coevo.envs.toolusage.literal import MAX_DEPTH, NotALiteral, read_literal


def test_server_line_takes_the_last_line_with_an_action_input() -> None:
    reply = "Thought: first.\n\nAction: get_user_current_date with Action Input: {}"
    assert server_line(reply) == "Action: get_user_current_date with Action Input: {}"
    # the input must reach the end of the reply: a line after it breaks the format
    assert server_line(reply + "\nObservation: made up") is None
    assert server_line("no action at all") is None


def test_parse_line_reads_name_and_literal_input() -> None:
    parsed = parse_line("Action: get_distance with Action Input: {'latitude1': -3.5, \"longitude1\": 1e2}")
    assert parsed is not None
    assert parsed.name == "get_distance"
    assert parsed.params == {"latitude1": -3.5, "longitude1": 100.0}
    assert parse_line("get_distance with Action Input: {}") is None  # no "Action:" there


@pytest.mark.parametrize(
    "text, value",
    [
        ("{}", {}),
        ("{'a': [1, (2, 3)], 'b': None, 'c': True}", {"a": [1, (2, 3)], "b": None, "c": True}),
        ("'text'", "text"),
        ("-4.25", -4.25),
        ("{1, 2}", {1, 2}),
    ],
)
def test_literals_are_read(text: str, value: object) -> None:
    assert read_literal(text) == value


@pytest.mark.parametrize(
    "text",
    [
        "{'answer': 20.1 - 3.2}",  # arithmetic: eval would compute it
        "{'answer': 2 * 3}",
        "{'answer': 10 ** 9}",
        "{'answer': 1 < 2}",
        "{'answer': len('abc')}",  # a call
        "__import__('os').system('true')",
        "{'answer': 'x'.upper()}",  # attribute access
        "{'answer': [1, 2][0]}",  # subscript
        "{'answer': [i for i in range(3)]}",
        "{'answer': lambda: 1}",
        "{'answer': f'{1}'}",
        "{'answer': true}",  # JSON's words are names in Python: eval fails on them too
        "{'answer': null}",
        "{'a': 1,",  # not Python at all
        "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
        "9" * 5000,  # Python refuses to read an integer this long
    ],
)
def test_everything_else_is_refused(text: str) -> None:
    with pytest.raises(NotALiteral):
        read_literal(text)
    with pytest.raises(ActionInputError, match="Parameters in action input are not valid"):
        parse_line(f"Action: finish with Action Input: {text}")


def test_a_64_kib_input_is_read_or_refused_quickly() -> None:
    big = "{'answer': '" + "x" * 65_000 + "'}"
    assert read_literal(big) == {"answer": "x" * 65_000}
    with pytest.raises(NotALiteral):
        read_literal("(" * 30_000 + ")" * 30_000)
