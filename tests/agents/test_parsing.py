"""Tolerant ReAct parsing: what small models actually write still yields the action; what cannot
be read says why."""

from __future__ import annotations

import pytest

from coevo.client.policies.parsing import canonical_action, parse_react


@pytest.mark.parametrize(
    ("reply", "thought", "action"),
    [
        ("Thought: find the apple\nAction: go to countertop 1", "find the apple", "go to countertop 1"),
        ("ACTION:\n  go to fridge 1.\nObservation: You arrive at fridge 1.", "", "go to fridge 1"),
        ("**Action**: `open drawer 2`", "", "open drawer 2"),
        (
            "Thought: first\nAction 1: take apple 1 from countertop 1\nThought: then",
            "first",
            "take apple 1 from countertop 1",
        ),
        ('Action: "look"', "", "look"),
        ("go to desk 1", "", "go to desk 1"),
        ("I am done here. Action: inventory", "", "inventory"),
        ("Thought: it is closed\nAction: open fridge 1<|im_end|>", "it is closed", "open fridge 1"),
        (
            "Thought:\nthe mug is here\n\nAction:\ntake mug 1 from shelf 2\n",
            "the mug is here",
            "take mug 1 from shelf 2",
        ),
    ],
)
def test_single_line_actions(reply: str, thought: str, action: str) -> None:
    parsed = parse_react(reply, single_line=True)
    assert parsed.ok and parsed.error is None
    assert parsed.action == action
    assert parsed.thought == thought


def test_multi_line_actions_keep_their_lines_and_drop_fences_and_invented_turns() -> None:
    parsed = parse_react("Thought: two calls\nAction: [f(a=1),\n g(b='x')]\nObservation: done")
    assert parsed.action == "[f(a=1),\n g(b='x')]"
    fenced = parse_react("Action: ```python\n[get_weather(city='Paris')]\n```")
    assert fenced.action == "[get_weather(city='Paris')]"
    bare = parse_react('[{"name": "f", "arguments": {"x": 1}}]')
    assert bare.action == '[{"name": "f", "arguments": {"x": 1}}]'
    assert not parse_react("[f(a=1),\n g(b=2)]").ok  # several bare lines: say so rather than guess


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "empty"),
        ("Thought: I should look around first", "no 'Action:'"),
        ("Thought: a\nAction:", "empty"),
        ("Thought: a\nAction:   \nObservation: x", "empty"),
        ("I will go to the fridge\nand then open it", "no 'Action:'"),
    ],
)
def test_unreadable_replies_say_why(reply: str, reason: str) -> None:
    parsed = parse_react(reply, single_line=True)
    assert not parsed.ok and parsed.action is None
    assert reason in (parsed.error or "")


def test_canonical_action_matches_case_and_spacing_only() -> None:
    available = ["go to fridge 1", "take apple 1 from countertop 1"]
    assert canonical_action("Go to  Fridge 1", available) == "go to fridge 1"
    assert canonical_action("go to fridge 2", available) == "go to fridge 2"  # unknown: the env decides
    assert canonical_action("look", {"clickables": ["look"]}) == "look"  # dict-shaped sets are left alone
