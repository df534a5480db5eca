"""AgentBoard-format Movie files: the films and people a recognised question names are added to
the database with attributes consistent with its recorded answer, and the expert reaches that
answer through the tools; an unrecognised question, or one whose answer conflicts with another
task's, stays an exception (no plan, no win).

The questions, films and people are made up here, in AgentBoard's format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coevo.envs.movie.catalogue import DATA
from coevo.envs.movie.recognise import recognise
from coevo.envs.registry import make
from tests.toolusage.agentboard_files import agentboard_row, play_expert, write_agentboard

#: (question, recorded answer, the kind the loader should see)
CASES: list[tuple[str, Any, str | None]] = [
    (
        'Who directed the movie "The Glass Lighthouse"? Please answer me with the director\'s name as a string.',
        "Ada Quill",
        "director",
    ),
    (
        'What is the release date of the movie "The Glass Lighthouse"? Please provide the date in the format '
        "YYYY-MM-DD.",
        "2001-02-03",
        "release_date",
    ),
    ('What is the budget of the movie "Paper Moons"? Please provide the budget as a number.', 12_000_000, "budget"),
    (
        'Which movie has a higher revenue, "The Glass Lighthouse" or "Paper Moons"? Please answer me with the film '
        "name as a string.",
        "Paper Moons",
        "higher_revenue",
    ),
    (
        'What are the genres of the movie "Paper Moons"? Please answer me with an array.',
        ["Comedy", "Western"],
        "genres",
    ),
    (
        'Do the movies "The Glass Lighthouse" and "Paper Moons" share a common genre? Please answer me with Yes or No.',
        "Yes",
        "common_genre",
    ),
    (
        "What role did Ada Quill play in Paper Moons? Please answer me with the character's name as a string.",
        "Nora Vale",
        "role",
    ),
    (
        'The actress who played Nora Vale in "Paper Moons", what role did she play in "The Glass Lighthouse"? '
        "Please answer me with the character name as a string.",
        "Keeper Jun",
        "role_chain",
    ),
    (
        'What is the birthday of the actor who played Keeper Jun in "The Glass Lighthouse"? Please provide the date '
        "in the format YYYY-MM-DD.",
        "1970-01-02",
        "actor_field",
    ),
    ('Did the movie "Paper Moons" make a profit? Please answer with Yes or No.', "Yes", "profit"),
    (
        'What is the German translation of the overview for the film "Paper Moons"? Please provide the translation '
        "as a string.",
        "Zwei Monde aus Papier.",
        "translation",
    ),
    (
        "Is there any movie where both Ada Quill and Bo Reed starred together? Please answer me with Yes or No.",
        "Yes",
        "costars",
    ),
    (
        "Among the movies directed by Ada Quill, which one has the highest revenue? Please answer me with the film "
        "name as a string.",
        "Paper Moons",
        "director_best",
    ),
    (
        'What is the birthdate of the actor who portrayed the lead character in the film adaptation of "Paper Moons"? '
        "Please provide the date in the format YYYY-MM-DD.",
        "1980-05-06",
        "lead_actor",
    ),
    # a group of films named without quotes stands as one film of that name
    (
        "What is the Facebook ID of the actor who played Captain Mira in the Starfall Cinematic Universe? "
        "Please answer me with the actor's name.",
        "Lena Frost",
        "actor_name_asked_id",
    ),
    (
        "What is the birthday of the actress who played Captain Mira in the Starfall Cinematic Universe? Please "
        "provide the date in the format YYYY-MM-DD.",
        "1985-03-04",
        "actor_field",
    ),
    (
        'Did the actress who played Captain Mira in the Starfall Cinematic Universe also appear in "Paper Moons"? '
        "Please answer with Yes or No.",
        "Yes",
        "actor_also_in",
    ),
    (
        "Is the actress who played Captain Mira in the Starfall Cinematic Universe the same as the actress who "
        'played Nora Vale in "Paper Moons"? Please answer me with Yes or No.',
        "No",
        "same_actor",
    ),
    (
        'Is the actor who played Keeper Jun in "The Glass Lighthouse" the same as the actor who played Nora Vale in '
        '"Paper Moons"? Please answer me with Yes or No.',
        "Yes",
        "same_actor",
    ),
    (
        'What is the Twitter ID of the actress who starred in "Salt Harbour"? Please answer me with the actress name.',
        "Tess Marlow",
        "lead_name_asked_id",
    ),
    # a film named by its director (or star) and what its overview says it is about
    (
        "What is the budget of the movie directed by Ada Quill that explores the concept of paper boats? Please "
        "provide the budget as a number.",
        30_000_000,
        "described",
    ),
    (
        "Who is the actor known for portraying Captain Reed in the film directed by Ada Quill, which explores the "
        "concept of paper boats? Please answer me with the actor's name as a string.",
        "Cal Dunn",
        "described_actor",
    ),
    (
        "What is the birthdate of the actor who portrayed the Lighthouse Keeper in the film directed by Ada Quill? "
        "Please provide the date in the format of YYYY-MM-DD.",
        "1966-06-06",
        "described_actor",
    ),
    (
        "Can you provide the biography of the actress who starred in the film directed by Ada Quill, which follows "
        "the journey of a lighthouse keeper? Please answer me with a brief description.",
        "Wren Hale (born 1970) is a made-up actress.",
        "described_lead",
    ),
    (
        "Which actor starred alongside Bo Reed in the film directed by Ada Quill, known for its use of paper "
        "puppets? Please answer me with the actor's name as a string.",
        "Dee Marsh",
        "described_costar",
    ),
    (
        "Who directed the film that explores the life of a paper maker, starring Bo Reed in the lead role? Please "
        "answer me with the director's name as a string.",
        "Eve Lark",
        "described_director",
    ),
    # a nationality's country, a phrase kept as a keyword, a director's debut, mean, most items
    ('Is the movie "Paper Moons" a Japanese film? Please answer with Yes or No.', "Yes", "is_country"),
    ('Is the movie "The Glass Lighthouse" based on a true story? Please answer with Yes or No.', "No", "has_keyword"),
    (
        "Could you tell me the release date of the film that marked the directorial debut of Ada Quill? Please "
        "provide the date in the format of YYYY-MM-DD.",
        "1990-01-01",
        "debut",
    ),
    (
        "What is the average vote score of the movies directed by Gil Moss? Please provide the answer as a number.",
        6.5,
        "director_mean",
    ),
    (
        "Among the movies directed by Gil Moss, which one has the highest number of production countries? Please "
        "answer me with the film names as an array.",
        ["Dust Road", "Iron Bay"],
        "director_best",
    ),
    (
        "In 'Paper Moons' and 'The Glass Lighthouse', which of the two movies had higher earnings? Please answer me "
        "with the film name as a string.",
        "Paper Moons",
        "higher_revenue",
    ),
    # the film a biography names after "first gained attention" (one of the person's credits)
    (
        "May I ask, in which movie did Pia Holm first gain attention? Please answer me with the movie name as a "
        "string.",
        "Kite Season",
        "attention_film",
    ),
    (
        "Who is the director of the film that Pia Holm first gained attention? Please answer me with the director's "
        "name as a string.",
        "Ivo Lind",
        "attention_director",
    ),
    (
        "Who is the director of the film that Rae Tull first gained attention? Please answer me with the director's "
        "name as a string.",
        "Ivo Lind",
        "attention_director",
    ),
    # a person with no role in the film: the file's sentence for it
    (
        'The actor who played Rook in "Kite Season", what role did he play in "Paper Moons"? Please answer me with '
        "the character name as a string.",
        "Tom Fenn did not have a role in 'Paper Moons'.",
        "role_chain",
    ),
    (
        "What role did Tom Fenn play in The Glass Lighthouse? Please answer me with the character's name as a string.",
        "Tom Fenn did not have a role in 'The Glass Lighthouse'.",
        "role",
    ),
    # directors named as siblings: any director of that surname
    (
        "Can you find out if the actress who portrayed Captain Mira in the Starfall Cinematic Universe appeared in "
        "any movies directed by the Vance brothers? Please answer me with Yes or No.",
        "Yes",
        "actor_in_films_of",
    ),
    (
        'Can you find out if the actor who played Rook in "Kite Season" appeared in any movies directed by the Orr '
        "sisters? Please answer me with Yes or No.",
        "No",
        "actor_in_films_of",
    ),
    # what no tool returns, where the question offers "state if it is not ...": that statement
    (
        "What is the television debut directing of the director of 'Paper Moons'? Please answer me with the "
        "specific work or state if it is not specified.",
        "Not specified",
        "tv_debut_not_held",
    ),
    (
        "Which year did the director of the movie 'Paper Moons' win the Golden Reel Award for Directing? Please "
        "answer me with a specific year or state if it's not available.",
        "Not available",
        "award_year_not_held",
    ),
    ("Which film by Ada Quill is the longest? Please answer me with the film name.", "Paper Moons", None),
    # read but left exceptions: the tools hold no awards; a group named by a description
    ('Did the movie "Paper Moons" win any Oscars? Please answer me with Yes or No.', "No", None),
    (
        "Could you tell me the biography of the actor who portrayed Keeper Jun in the film series based on the "
        "novels by Ada Quill? Please answer me with a brief summary.",
        "A biography.",
        None,
    ),
]


def _write(path: Path, cases: list[tuple[str, Any, str | None]]) -> None:
    write_agentboard(path, (agentboard_row(goal, answer, "movie") for goal, answer, _ in cases))


@pytest.mark.parametrize(("goal", "kind"), [(c[0], c[2]) for c in CASES])
def test_the_loader_recognises_each_kind(goal: str, kind: str | None) -> None:
    found = recognise(goal)
    assert (found.kind if found else None) == kind


def test_the_expert_reaches_each_recorded_answer_through_the_tools(tmp_path: Path) -> None:
    _write(tmp_path / "movie.jsonl", CASES)
    env = make("movie", data_dir=str(tmp_path), train_tasks=50)
    for index, (goal, _, kind) in enumerate(CASES):
        if kind is None:
            env.reset(task_id=f"file-{index}")
            assert env.expert_action() is None, goal  # not recognised: an exception, not a fake win
            continue
        _, last = play_expert(env, f"file-{index}")[-1]
        assert last.info.get("success") is True, goal
    # the budget came from get_movie_details on the film the loader added
    observations = [result.observation for _, result in play_expert(env, "file-2")]
    assert "'budget': 12000000" in observations[1]
    # training was generated before the file's films were added: it never asks about them
    assert not any("Paper Moons" in t.goal or "Glass Lighthouse" in t.goal for t in env.taskset.splits["train"])


def test_an_answer_the_database_cannot_also_hold_stays_an_exception(tmp_path: Path) -> None:
    first = CASES[1]
    second = (first[0], "1999-09-09", first[2])  # the same film, another release date
    _write(tmp_path / "movie.jsonl", [first, second])
    env = make("movie", data_dir=str(tmp_path), train_tasks=5)
    _, last = play_expert(env, "file-0")[-1]
    assert last.info.get("success") is True
    env.reset(task_id="file-1")
    assert env.expert_action() is None
    assert env.taskset.by_id["file-1"][1].kind == "release_date"  # recognised, but not reachable


def test_a_title_answered_in_quotes_is_recognised_but_stays_an_exception(tmp_path: Path) -> None:
    """AgentBoard once records a title with the question's single quotes; the expert answers the
    film's title, so the task is listed, not won."""
    goal = (
        "In 'Paper Moons' and 'The Glass Lighthouse', which of the two movies had higher earnings? Please answer me "
        "with the film name as a string."
    )
    _write(tmp_path / "movie.jsonl", [(goal, "'Paper Moons'", "higher_revenue")])
    env = make("movie", data_dir=str(tmp_path), train_tasks=5)
    env.reset(task_id="file-0")
    assert env.expert_action() is None
    assert env.taskset.by_id["file-0"][1].kind == "higher_revenue"


def _reasons() -> dict[str, str]:
    """The data file's reasons, by their first words."""
    data = json.loads((DATA / "exceptions.json").read_text(encoding="utf-8"))
    return {e["reason"].split(":")[0]: e["reason"] for e in data["unrecognised"] + data["unheld"]}


def test_each_exception_carries_the_reason_its_shape_gives(tmp_path: Path) -> None:
    reasons = _reasons()
    rows = [
        ('Did the movie "Paper Moons" win any Oscars? Please answer me with Yes or No.', "No"),
        (
            "In the movie for which Ada Quill won the Oscar for Best Actress, what role did Bo Reed play? Please "
            "answer me with the character's name as a string.",
            "Nora Vale",
        ),
        (
            "Who directed the film that follows a lighthouse keeper lost at sea? Please answer me with the "
            "director's name as a string.",
            "Ada Quill",
        ),
        ("Which film by Ada Quill is the longest? Please answer me with the film name.", "Paper Moons"),
        (
            "In 'Paper Moons' and 'The Glass Lighthouse', which of the two movies had higher earnings? Please answer "
            "me with the film name as a string.",
            "'Paper Moons'",
        ),
        (
            'Who composed the music for "Paper Moons"? Please answer me with the composer\'s name as a string.',
            "The information is not available.",
        ),
        ('What is the budget of the movie "Paper Moons"? Please provide the budget as a number.', 12_000_000),
        ('What is the budget of the movie "Paper Moons"? Please provide the budget as a number.', 13_000_000),
    ]
    write_agentboard(tmp_path / "movie.jsonl", (agentboard_row(goal, answer, "movie") for goal, answer in rows))
    env = make("movie", data_dir=str(tmp_path), train_tasks=5)
    notes = [env.taskset.by_id[f"file-{i}"][1].note for i in range(len(rows))]
    assert notes[0] == reasons["asks whether a film won awards"]
    assert notes[1] == next(r for key, r in reasons.items() if key.startswith("names a film only by an award"))
    assert notes[2] == next(r for key, r in reasons.items() if key.startswith("names a film only by what it is about"))
    assert notes[3] is not None and notes[3].startswith("the loader does not recognise the question")
    assert notes[4] == next(r for key, r in reasons.items() if "single quotes" in r)
    assert notes[5] == next(r for key, r in reasons.items() if "no composer" in r)
    assert notes[6] is None  # won: no reason
    assert notes[7] == "recognised (budget), but the tools answer 12000000 where the file records 13000000"


def test_a_biography_another_task_fixed_names_no_film_for_first_attention(tmp_path: Path) -> None:
    """The biography is one field: a task recording it and one asking for the film it names after
    "first gained attention" cannot both hold unless the recorded biography names it."""
    rows = [
        ("What is the biography of Pia Holm?", "Pia Holm is a painter."),
        ("In which movie did Pia Holm first gain attention? Please answer me with the movie name.", "Kite Season"),
    ]
    write_agentboard(tmp_path / "movie.jsonl", (agentboard_row(goal, answer, "movie") for goal, answer in rows))
    env = make("movie", data_dir=str(tmp_path), train_tasks=5)
    assert env.taskset.by_id["file-0"][1].plan  # the recorded biography stands
    assert not env.taskset.by_id["file-1"][1].plan  # and names no film: an exception, not a fake win
    named = (
        "Pia Holm is a painter. Pia Holm first gained attention in Kite Season.",
        "In which movie did Pia Holm first gain attention? Please answer me with the movie name.",
    )
    # a recorded biography that names the film holds beside the question
    rows = [("What is the biography of Pia Holm?", named[0]), (named[1], "Kite Season")]
    (tmp_path / "named").mkdir()  # another folder: the loaded data is shared per options
    write_agentboard(
        tmp_path / "named" / "movie.jsonl", (agentboard_row(goal, answer, "movie") for goal, answer in rows)
    )
    env = make("movie", data_dir=str(tmp_path / "named"), train_tasks=5)
    assert all(env.taskset.by_id[f"file-{i}"][1].plan for i in range(len(rows)))
