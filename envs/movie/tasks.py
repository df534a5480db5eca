"""Movie's tasks: generated questions of the kinds in data/templates.json (answers found by the
expert with the tools), and AgentBoard's `movie.jsonl` loaded from a directory.

AgentBoard's questions name TMDB's real films and people, which the generated database lacks
(the original asks TMDB online). A question the loader recognises (data/templates.json
"recognise") has its films and people added with attributes consistent with its recorded answer
(envs/movie/rules.py) and gets a plan; any other is served without one, its note saying why
(envs/movie/exceptions.py; bench/movie.py lists those).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from coevo.envs.movie import expert
from coevo.envs.movie.catalogue import DATA, Catalogue
from coevo.envs.movie.exceptions import why
from coevo.envs.movie.recognise import recognise
from coevo.envs.movie.rules import EXACT, FIRST, RELATIONAL
from coevo.envs.movie.toolkit import MovieToolkit
from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.tasks import ToolTask, read_agentboard, task_from_row

TEMPLATES: dict[str, Any] = json.loads((DATA / "templates.json").read_text(encoding="utf-8"))
VOCABULARY: dict[str, Any] = json.loads((DATA / "vocabulary.json").read_text(encoding="utf-8"))
#: AgentGym's Movie file has 238 tasks; the generated test split has as many.
AGENTGYM_TASKS = 238


def _params(rng: random.Random, cat: Catalogue) -> dict[str, Any]:
    movie = cat.movies[rng.choice(sorted(cat.movies))]
    other = cat.movies[rng.choice([m for m in sorted(cat.movies) if m != movie.id])]
    actor, character = rng.choice(movie.cast)
    return {
        "movie": movie.title,
        "movie2": other.title,
        "person": cat.people[actor].name,
        "character": character,
        "genre": rng.choice(VOCABULARY["genres"])[1],
        "twitter": cat.people[actor].external_ids["twitter_id"],
    }


def generate(
    specs: tuple[ToolSpec, ...],
    cat: Catalogue,
    split: str,
    count: int,
    seed: int,
    exclude: frozenset[str] = frozenset(),
) -> list[ToolTask]:
    """`count` questions cycling through the kinds; none whose text is in `exclude` (the held-out
    split's questions, when generating the training split)."""
    rng = random.Random(f"movie-tasks|{split}|{seed}")
    kinds = sorted(TEMPLATES["templates"])
    tasks: list[ToolTask] = []
    while len(tasks) < count:
        kind = kinds[len(tasks) % len(kinds)]
        params = _params(rng, cat)
        if kind == "character_twitter" and params["twitter"] is None:
            continue  # the actor has no Twitter id: ask about another
        if TEMPLATES["templates"][kind].format(**params) in exclude:
            continue
        answer, plan = expert.solve(kind, MovieToolkit(specs, cat), params)
        index = len(tasks)
        tasks.append(
            ToolTask(
                task_id=f"{split}-{index}",
                goal=TEMPLATES["templates"][kind].format(**params),
                subgoals=(answer,),
                answer=answer,
                goal_type=0,
                kind=kind,
                plan=tuple(plan),
                index=index,
            )
        )
    return tasks


def file_path(data_dir: str) -> Path:
    """`data_dir` is AgentBoard's data folder (holding movie.jsonl) or the file itself."""
    path = Path(data_dir)
    return path / "movie.jsonl" if path.is_dir() else path


def load_file(specs: tuple[ToolSpec, ...], cat: Catalogue, data_dir: str) -> list[ToolTask]:
    """AgentBoard's movie tasks in file order (AgentGym's index). The films and people of the
    recognised questions are added to `cat` and given the recorded answers (exact rules before
    relational ones); then the expert answers each with the tools, and a task gets a plan only
    where its answer is the file's."""
    rows = read_agentboard(file_path(data_dir), "file")
    questions = [recognise(row["goal"]) for row in rows]
    for rules in (FIRST, EXACT, RELATIONAL, RELATIONAL, RELATIONAL):  # later passes settle one moved by another
        for row, question in zip(rows, questions):
            if question is not None and question.rule["name"] in rules:
                rules[question.rule["name"]](cat, question.rule, question.params, row["additional_info"].get("answer"))
    tasks = []
    for index, (row, question) in enumerate(zip(rows, questions)):
        plan: list[str] = []
        answer = None
        recorded = row["additional_info"].get("answer")
        if question is not None:
            try:
                answer, lines = expert.solve_rule(
                    question.rule, MovieToolkit(specs, cat), {**question.params, "goal": row["goal"]}
                )
            except (StopIteration, IndexError, KeyError):  # the database cannot answer it
                answer, lines = None, []
            if answer == recorded and all(g == answer for g in row["subgoals"]):
                plan = lines
        note = None if plan else why(row["goal"], question, recorded, answer)
        tasks.append(task_from_row(row, index, question.kind if question else None, plan, note))
    return tasks
