"""SearchQA against Search-R1's own code: replies, observations and prompts it produced.

tests/searchqa/fixtures/searchr1.json was recorded once by scripts/fidelity/record_searchr1.py,
which runs a Search-R1 checkout's `_postprocess_responses`, `postprocess_predictions`,
`execute_predictions`, `_passages2string` and `make_prefix` on 5,000 generated replies (well
formed actions, upper-case and bracket forms, nested and repeated tags, tag soup), five
retrieval results and four questions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from coevo.envs.searchqa.actions import INVALID_ACTION, cut_reply, information, parse_action, render_passages
from coevo.envs.searchqa.env import PROMPT

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "searchr1.json").read_text())


@dataclass
class Doc:
    title: str
    text: str
    title_line: str | None = None


def _doc(contents: str) -> Doc:
    """A FlashRAG corpus row as the SearchQA corpus stores it (corpus._read_user_passages)."""
    first, _, text = contents.partition("\n")
    title = first.strip('"')
    return Doc(title, text, None if first == f'"{title}"' else first)


def test_the_fixture_covers_every_outcome() -> None:
    replies = FIXTURE["replies"]
    assert len(replies) == 5000
    kinds = {(r["action"], r["cut"] is not None) for r in replies}
    assert kinds == {
        (None, False),
        (None, True),
        ("search", False),
        ("search", True),
        ("answer", False),
        ("answer", True),
    }


def test_replies_are_cut_and_parsed_as_search_r1_does() -> None:
    wrong = [
        r["reply"]
        for r in FIXTURE["replies"]
        if cut_reply(r["reply"]) != (r["cut"] if r["cut"] is not None else r["reply"])
        or parse_action(r["reply"]) != ((r["action"], r["content"]) if r["action"] else None)
    ]
    assert wrong == []


def test_lenient_reading_differs_from_search_r1_on_the_adversarial_replies() -> None:
    differ = sum(
        parse_action(r["reply"], lenient=True) != ((r["action"], r["content"]) if r["action"] else None)
        for r in FIXTURE["replies"]
    )
    assert differ > 500  # the option really is another reading (998 of 5,000 when recorded)


def test_observations_are_search_r1s() -> None:
    search_results = FIXTURE["search_results"]
    observations = FIXTURE["observations"]
    docs = [_doc(c) for c in FIXTURE["passages"][1]["contents"]]
    assert render_passages(docs) == search_results
    for r in FIXTURE["replies"]:
        expected = observations[r["observation"]]
        if r["action"] is None:
            assert expected == INVALID_ACTION and not r["done"] and not r["valid"]
        elif r["action"] == "search":
            assert expected == information(docs) and not r["done"]
        else:
            assert expected == "" and r["done"]


@pytest.mark.parametrize("case", FIXTURE["passages"], ids=lambda c: str(len(c["contents"])))
def test_passages_render_as_search_r1_renders_them(case: dict) -> None:
    assert render_passages([_doc(c) for c in case["contents"]]) == case["rendered"]


@pytest.mark.parametrize("case", FIXTURE["prompts"], ids=lambda c: c["question"])
def test_prompt_is_search_r1s_make_prefix(case: dict) -> None:
    assert PROMPT.format(question=case["question"]) == case["prompt"]
