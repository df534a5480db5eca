"""SearchQA: the generated world, its questions, scoring, actions and the reading expert."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from coevo.envs.base import EpisodeFinished, UnknownTask
from coevo.envs.searchqa.actions import INVALID_ACTION
from coevo.envs.searchqa.corpus import SearchIndex, build_generated, build_user
from coevo.envs.searchqa.env import SearchQAEnv, parse_action
from coevo.envs.searchqa.expert import read_relation
from coevo.envs.searchqa.scoring import exact_match, f1, normalize
from coevo.envs.searchqa.tasks import TEMPLATES, generate_questions, generate_world, passages_of, read_question_file

PASSAGES = 4000


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_generated(PASSAGES, seed=3, out=tmp_path_factory.mktemp("sqa") / "build")


@pytest.fixture(scope="module")
def shared(build: Path):  # type: ignore[no-untyped-def]
    return SearchQAEnv.load_shared(build_dir=str(build))


def test_world_has_one_unique_passage_per_entity_and_is_deterministic() -> None:
    world = generate_world(3000, seed=1)
    passages = passages_of(world)
    assert len(passages) == world.size() == 3000
    titles = [t.lower() for t, _ in passages]
    assert len(set(titles)) == len(titles)
    assert passages == passages_of(generate_world(3000, seed=1))
    assert passages != passages_of(generate_world(3000, seed=2))
    with pytest.raises(ValueError):
        generate_world(50)


def test_every_question_is_answerable_only_through_both_passages() -> None:
    world = generate_world(3000, seed=1)
    text = dict(passages_of(world))
    questions = generate_questions(world, 200, seed=1)
    assert len({q.question for q in questions}) == 200
    assert set(Counter(q.template for q in questions)) == set(TEMPLATES)
    for q in questions:
        t = TEMPLATES[q.template]
        assert q.anchor in q.question and q.bridge not in q.question
        assert q.answers[0] not in q.question
        assert read_relation(t.hop1, text[q.anchor]) == q.bridge
        assert read_relation(t.hop2, text[q.bridge]) == q.answers[0]


@pytest.mark.parametrize(
    ("prediction", "golds", "em"),
    [
        ("The Paris", ["paris"], 1.0),
        ("paris.", ["Paris"], 1.0),
        ("  PARIS ", ["Paris"], 1.0),
        ("Paris, France", ["Paris"], 0.0),
        ("1843", ["1843"], 1.0),
        ("an apple", ["Apple"], 1.0),
    ],
)
def test_exact_match_normalizes_like_squad(prediction: str, golds: list[str], em: float) -> None:
    assert exact_match(prediction, golds) == em


def test_f1_gives_partial_credit() -> None:
    assert f1("Paris France", ["Paris"]) == pytest.approx(2 / 3)
    assert f1("London", ["Paris"]) == 0.0
    assert normalize("The  Quick, brown fox!") == "quick brown fox"


@pytest.mark.parametrize(
    ("text", "strict", "lenient"),
    [
        ("<search>who founded x</search>", ("search", "who founded x"), ("search", "who founded x")),
        ("<think>first find x</think>\n<search> x founder </search>", ("search", "x founder"), ("search", "x founder")),
        ("<answer>Paris</answer>", ("answer", "Paris"), ("answer", "Paris")),
        ("<ANSWER>1843</ANSWER> trailing", None, ("answer", "1843")),
        ("search[founder of x]", None, ("search", "founder of x")),
        ("answer[Paris]", None, ("answer", "Paris")),
        # Search-R1 cuts the reply after its first </search> before looking for a tag
        ("<answer>x</search></answer>", None, ("answer", "x</search>")),
        ("<answer><search>x</search></answer>", ("search", "x"), ("answer", "<search>x</search>")),
        ("<search><answer>x</answer></search>", ("search", "<answer>x</answer>"), ("search", "<answer>x</answer>")),
        ("I think it is Paris", None, None),
        ("<search>unclosed", None, None),
    ],
)
def test_parse_action(text: str, strict: tuple[str, str] | None, lenient: tuple[str, str] | None) -> None:
    assert parse_action(text) == strict
    assert parse_action(text, lenient=True) == lenient


def test_search_returns_search_r1s_information_block_with_the_anchor_first(shared) -> None:  # type: ignore[no-untyped-def]
    env = SearchQAEnv(shared)
    reset = env.reset(split="test", seed=0)
    q = env.question
    assert q is not None and reset.info["task"] == q.question
    assert reset.observation.startswith("Answer the given question.")
    assert reset.observation.endswith(f"Question: {q.question}\n")
    result = env.step(f"<search>{q.anchor}</search>")
    assert result.observation.startswith(f'\n\n<information>Doc 1(Title: "{q.anchor}") ')
    assert result.observation.endswith("</information>\n\n") and "Doc 3(Title: " in result.observation
    assert result.reward == 0.0 and not result.done and result.info["searches"] == 1
    empty = env.step("<search> </search>")  # Search-R1 searches an empty query too
    assert empty.observation == "\n\n<information></information>\n\n" and empty.info["searches"] == 2


def test_invalid_actions_and_search_limit_are_reported_not_fatal(shared) -> None:  # type: ignore[no-untyped-def]
    env = SearchQAEnv(shared)
    env.reset(split="dev", seed=1)
    bad = env.step("the answer is obviously 42")
    assert bad.info["valid"] is False and not bad.done and bad.observation == INVALID_ACTION
    assert env.step("<ANSWER>42</ANSWER>").observation == INVALID_ACTION  # upper case: not Search-R1's tag
    for _ in range(shared.max_searches):
        assert env.step("<search>company</search>").info["valid"]
    capped = env.step("<search>more</search>")
    assert "Search limit reached" in capped.observation and capped.info["searches"] == shared.max_searches
    final = env.step("<answer>nobody</answer>")
    assert final.done and final.reward == 0.0 and final.info["answers"] == env.question.answers
    assert final.observation == "" and final.info["answer"] == "nobody"
    with pytest.raises(EpisodeFinished):
        env.step("<answer>again</answer>")


def test_lenient_option_reads_any_case_and_bracket_forms(build: Path) -> None:
    env = SearchQAEnv(SearchQAEnv.load_shared(build_dir=str(build), lenient="true"))
    env.reset(split="dev", seed=1)
    assert env.step("SEARCH[company]").info["valid"]
    assert env.step(f"<Answer>{env.question.answers[0]}</Answer>").reward == 1.0
    with pytest.raises(ValueError, match="true or false"):
        SearchQAEnv.load_shared(build_dir=str(build), lenient="maybe")


def test_correct_answer_gets_reward_and_same_actions_replay_identically(shared) -> None:  # type: ignore[no-untyped-def]
    env = SearchQAEnv(shared)
    env.reset(task_id=shared.index.questions["train"][5].qid)
    observations = []
    while not env.done:
        observations.append(env.step(env.expert_action()).observation)
    assert env.actions[-1] == f"<answer>{env.question.answers[0]}</answer>"
    twin = SearchQAEnv(shared)
    twin.restore(env.snapshot())
    assert twin.seen == env.seen and twin.done


def test_expert_reads_its_way_to_the_answer_on_nearly_every_question(shared) -> None:  # type: ignore[no-untyped-def]
    env = SearchQAEnv(shared)
    total = correct = 0
    for split in ("test", "dev", "train"):
        for task_id in env.task_ids(split, 0, 40):
            env.reset(task_id=task_id)
            while not env.done:
                result = env.step(env.expert_action())
            total += 1
            correct += result.reward
            assert len(env.actions) == 3  # search anchor, search bridge, answer
    assert total >= 60 and correct / total >= 0.95


def test_splits_and_unknown_tasks(shared) -> None:  # type: ignore[no-untyped-def]
    env = SearchQAEnv(shared)
    splits = env.splits()
    assert set(splits) == {"test", "dev", "train"} and all(n > 0 for n in splits.values())
    ids = env.task_ids("dev", 2, 3)
    assert len(ids) == 3 and env.split_of(ids[0]) == "dev"
    with pytest.raises(UnknownTask):
        env.reset(task_id="nope")


def test_user_corpus_and_bamboogle_questions(tmp_path: Path) -> None:
    corpus = tmp_path / "wiki.jsonl"
    rows = [
        {"id": "1", "contents": '"Citibank"\nCitibank was founded in 1812 in New York.'},
        {
            "id": "2",
            "title": "James Madison",
            "text": "James Madison was president of the United States from 1809 to 1817.",
        },
        {"id": "3", "contents": "Plain title line\nA passage whose title line has no quotes."},
    ]
    corpus.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    questions = tmp_path / "bamboogle.csv"
    questions.write_text(
        "Question,Answer\nWho was president of the United States in the year that Citibank was founded?,james madison\n"
    )
    build = build_user(corpus, questions, out=tmp_path / "build")
    index = SearchIndex(build)
    assert index.search("citibank founded", 1)[0].title == "Citibank"
    env = SearchQAEnv(SearchQAEnv.load_shared(build_dir=str(build)))
    env.reset(split="test", seed=0)
    assert env.expert_action() is None  # no composition known for a user's question
    shown = env.step("<search>passage whose title line</search>").observation
    assert shown.startswith("\n\n<information>Doc 1(Title: Plain title line) A passage whose")  # as written
    assert '(Title: "Citibank") Citibank was founded' in env.step("<search>citibank</search>").observation
    assert env.step("<answer>James Madison</answer>").reward == 1.0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"Question": "q?"}]))
    with pytest.raises(ValueError, match="lacks a question"):
        read_question_file(bad)


def _flashrag_rows() -> list[dict]:
    return [
        {
            "id": "test_0",
            "question": "who wrote the silent kraith",
            "golden_answers": ["Ann Lee", "A. Lee"],
            "metadata": {"type": "bridge"},
        },
        {
            "id": "test_1",
            "question": "In what year was Ann Lee born?",
            "golden_answers": ["1801"],
            "metadata": {"type": "bridge"},
        },
    ]


def test_flashrag_jsonl_questions_load_with_all_their_golden_answers(tmp_path: Path) -> None:
    path = tmp_path / "test.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _flashrag_rows()))
    qs = read_question_file(path)
    assert [q.answers for q in qs] == [["Ann Lee", "A. Lee"], ["1801"]]
    assert [q.question for q in qs] == ["who wrote the silent kraith", "In what year was Ann Lee born?"]
    assert {q.split for q in qs} == {"test"}


def test_search_r1_parquet_questions_load_with_split_and_data_source(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    rows = [
        {
            **r,
            "data_source": source,
            "ability": "fact-reasoning",
            "prompt": [{"role": "user", "content": "..."}],
            "reward_model": {"style": "rule", "ground_truth": {"target": r["golden_answers"]}},
            "extra_info": {"split": split, "index": i},
        }
        for i, (r, source, split) in enumerate(zip(_flashrag_rows(), ("nq", "hotpotqa"), ("train", "test")))
    ]
    path = tmp_path / "train.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    without_golden = tmp_path / "target_only.parquet"
    pq.write_table(
        pa.Table.from_pylist([{k: v for k, v in r.items() if k != "golden_answers"} for r in rows]), without_golden
    )
    for source in (path, without_golden):
        qs = read_question_file(source)
        assert [(q.answers, q.split, q.source) for q in qs] == [
            (["Ann Lee", "A. Lee"], "train", "nq"),
            (["1801"], "test", "hotpotqa"),
        ]
    corpus = tmp_path / "wiki.jsonl"
    corpus.write_text(
        json.dumps({"id": "0", "contents": '"Ann Lee"\nAnn Lee (born 1801) wrote The Silent Kraith.'}) + "\n"
    )
    env = SearchQAEnv(SearchQAEnv.load_shared(build_dir=str(build_user(corpus, path, out=tmp_path / "b"))))
    assert env.splits() == {"train": 1, "test": 1}
    reset = env.reset(split="train", seed=0)
    assert reset.info["task_type"] == "nq" and reset.observation.endswith("Question: who wrote the silent kraith?\n")
    assert env.step("<answer>a. lee</answer>").reward == 1.0


def test_posting_list_search_scores_like_bm25s_retrieve(build: Path) -> None:
    import bm25s
    import numpy as np

    index = SearchIndex(build)
    queries = [q.question for q in index.questions["dev"][:10]] + [q.bridge for q in index.questions["dev"][:10]]
    queries += ["born university company", "the of and"]  # common terms (dense path), stop words only
    for query in queries:
        tokens = [
            t
            for t in bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
            if t in index.vocab
        ]
        mine = index.search(query, 5)
        if not tokens:
            assert mine == []
            continue
        _, scores = index.retriever.retrieve([tokens], k=5, show_progress=False, n_threads=1)
        expected = [s for s in scores[0] if s > 0]
        assert np.allclose([h.score for h in mine], expected, rtol=1e-4), query
        assert [h.score for h in mine] == sorted((h.score for h in mine), reverse=True)


def test_agentgym_presentation_reads_replies_as_agentgyms_server(shared) -> None:  # type: ignore[no-untyped-def]
    """On AgentGym's routes (`Env.agentgym`): the first tag anywhere is the action, an answer
    is scored on the reply's last <answer>, a wrong one lets the episode go on, and searches
    are not limited (agentenv-searchqa's env_wrapper.step)."""
    from coevo.envs.searchqa import agentgym
    from coevo.envs.searchqa.env import search_r1_question

    env = SearchQAEnv(shared)
    env.agentgym = True
    first = env.reset(task_id=env.task_ids("test", 0, 1)[0])
    assert first.observation == agentgym.prompt(search_r1_question(env.question.question))
    gold = env.question.answers[0]
    for _ in range(shared.max_searches + 1):
        r = env.step(f"<search>{gold}</search><answer>{gold}</answer>")
        assert r.observation.startswith("<information>Doc 1(Title: ") and not r.done
    r = env.step("<answer>surely not this</answer>")
    assert (r.observation, r.reward, r.done) == (agentgym.INCORRECT, 0.0, False)
    r = env.step(f"<answer>surely not this</answer> or rather <answer>{gold}</answer>")
    assert (r.observation, r.reward, r.done) == (agentgym.CORRECT, 1.0, True)
    assert r.info["agentgym"] is True
    native = SearchQAEnv(shared)
    native.reset(task_id=env.task_id)
    r = native.step(f"<answer>surely not this</answer> or rather <answer>{gold}</answer>")
    assert r.done and r.reward == 0.0  # Search-R1 scores the first answer


def test_an_empty_title_line_renders_as_search_r1_does(tmp_path: Path) -> None:
    """Search-R1's `_passages2string` shows a FlashRAG row's first line as it is: an empty one
    gives `Doc 1(Title: ) text`, not a quoted empty title."""
    corpus = tmp_path / "corpus.jsonl"
    rows = [
        {"id": "1", "contents": "\nA passage about the Orvane lighthouse, written without a title line."},
        {"id": "2", "contents": '"Citibank"\nCitibank was founded in 1812 in New York.'},
    ]
    corpus.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    questions = tmp_path / "q.csv"
    questions.write_text("Question,Answer\nWhere is the Orvane lighthouse?,nowhere\n")
    env = SearchQAEnv(SearchQAEnv.load_shared(build_dir=str(build_user(corpus, questions, out=tmp_path / "b"))))
    env.reset(split="test", seed=0)
    shown = env.step("<search>Orvane lighthouse</search>").observation
    assert shown.startswith("\n\n<information>Doc 1(Title: ) A passage about the Orvane lighthouse")


def _gold_in_a_search_until_the_cap(env: SearchQAEnv) -> list:  # type: ignore[type-arg]
    gold = env.question.answers[0]
    steps = [env.step(f"<search>is it <answer>{gold}</answer></search>")]
    while not steps[-1].truncated:
        steps.append(env.step("<search>the weather</search>"))
    return steps


def test_by_default_the_last_answer_anywhere_in_the_episode_is_scored(shared) -> None:  # type: ignore[no-untyped-def]
    """Search-R1's reward reads the last `<answer>` of the whole episode, even one inside a
    search query, also when the episode ends at the step cap without an answer action."""
    env = SearchQAEnv(shared)
    env.reset(split="dev", seed=4)
    steps = _gold_in_a_search_until_the_cap(env)
    assert len(steps) == env.max_steps and [s.reward for s in steps[:-1]] == [0.0] * (len(steps) - 1)
    assert steps[-1].reward == 1.0 and steps[-1].info["answer"] == env.question.answers[0]
    # An answer reply's later `<answer>` (kept by the cut at `</search>`) wins over its action's.
    env.reset(split="dev", seed=4)
    gold = env.question.answers[0]
    last = env.step(f"<answer>somebody else</answer> <answer>{gold}</answer> <search>x</search>")
    assert last.done and last.reward == 1.0 and last.info["answer"] == gold
    # The prompt's example answer alone is never scored; a later wrong answer replaces a right one.
    env.reset(split="dev", seed=4)
    env.step(f"<search><answer>{gold}</answer></search>")
    assert env.step("<answer>nobody</answer>").reward == 0.0
    # Search-R1's invalid-action text itself says "between <answer> and </answer>": after an
    # invalid reply, that "and" is the last answer until another one follows, as in Search-R1.
    env.reset(split="dev", seed=4)
    env.step(f"<search><answer>{gold}</answer></search>")
    env.step("I am not sure.")
    while not (final := env.step("<search>the weather</search>")).truncated:
        pass
    assert final.reward == 0.0 and final.info["answer"] == "and"


def test_answer_step_scoring_keeps_the_stricter_reading(build: Path) -> None:
    env = SearchQAEnv(SearchQAEnv.load_shared(build_dir=str(build), scoring="answer_step"))
    env.reset(split="dev", seed=4)
    assert _gold_in_a_search_until_the_cap(env)[-1].reward == 0.0  # no answer action: nothing scored
    env.reset(split="dev", seed=4)
    gold = env.question.answers[0]
    last = env.step(f"<answer>somebody else</answer> <answer>{gold}</answer> <search>x</search>")
    assert last.done and last.reward == 0.0 and last.info["answer"] == "somebody else"
    env.reset(split="dev", seed=4)
    assert env.step(f"<answer>{gold}</answer>").reward == 1.0
    with pytest.raises(ValueError, match="scoring must be one of search_r1, answer_step"):
        SearchQAEnv.load_shared(build_dir=str(build), scoring="last")
