"""Movie's expert: answers a question of a known kind by calling the database's tools (ids from
the searches, never assumed) and records the calls as the plan it replays."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from coevo.envs.movie.toolkit import MovieToolkit
from coevo.envs.toolusage.env import tool_line


class Solver:
    def __init__(self, toolkit: MovieToolkit) -> None:
        self.toolkit = toolkit
        self.lines: list[str] = []

    def call(self, tool: str, **arguments: Any) -> Any:
        self.lines.append(tool_line(tool, arguments))
        return self.toolkit.call(tool, arguments)

    def movie_id(self, title: str) -> int:
        found: int = self.call("get_search_movie", movie_name=title)[0]["id"]
        return found

    def person_id(self, name: str) -> int:
        found: int = self.call("get_search_person", person_name=name)[0]["id"]
        return found


def _director_birthplace(s: Solver, p: Mapping[str, Any]) -> Any:
    crew = s.call("get_movie_crew", movie_id=s.movie_id(p["movie"]))["crew"]
    director = next(c["id"] for c in crew if c["job"] == "Director")
    return s.call("get_person_details", person_id=director)["place_of_birth"]


def _is_genre(s: Solver, p: Mapping[str, Any]) -> Any:
    genres = s.call("get_movie_details", movie_id=s.movie_id(p["movie"]))["genres"]
    return "Yes" if any(g["name"] == p["genre"] for g in genres) else "No"


def _role(s: Solver, p: Mapping[str, Any]) -> Any:
    cast = s.call("get_movie_cast", movie_id=s.movie_id(p["movie"]))["cast"]
    return next(c["character"] for c in cast if c["name"] == p["person"])


def _common_country(s: Solver, p: Mapping[str, Any]) -> Any:
    first = s.call("get_movie_production_countries", movie_id=s.movie_id(p["movie"]))["production_countries"]
    second = s.call("get_movie_production_countries", movie_id=s.movie_id(p["movie2"]))["production_countries"]
    shared = {c["iso_3166_1"] for c in first} & {c["iso_3166_1"] for c in second}
    return "Yes" if shared else "No"


def _genres(s: Solver, p: Mapping[str, Any]) -> Any:
    return sorted(g["name"] for g in s.call("get_movie_details", movie_id=s.movie_id(p["movie"]))["genres"])


def _alternative_titles(s: Solver, p: Mapping[str, Any]) -> Any:
    titles = s.call("get_movie_alternative_titles", movie_id=s.movie_id(p["movie"]))["titles"]
    return sorted(t["title"] for t in titles)


def _character_twitter(s: Solver, p: Mapping[str, Any]) -> Any:
    cast = s.call("get_movie_cast", movie_id=s.movie_id(p["movie"]))["cast"]
    actor = next(c["id"] for c in cast if c["character"] == p["character"])
    return s.call("get_person_external_ids", person_id=actor)["twitter_id"]


def _release_date(s: Solver, p: Mapping[str, Any]) -> Any:
    return s.call("get_movie_details", movie_id=s.movie_id(p["movie"]))["release_date"]


def _person_birthday(s: Solver, p: Mapping[str, Any]) -> Any:
    return s.call("get_person_details", person_id=s.person_id(p["person"]))["birthday"]


KINDS: dict[str, Callable[[Solver, Mapping[str, Any]], Any]] = {
    "director_birthplace": _director_birthplace,
    "is_genre": _is_genre,
    "role": _role,
    "common_country": _common_country,
    "genres": _genres,
    "alternative_titles": _alternative_titles,
    "character_twitter": _character_twitter,
    "release_date": _release_date,
    "person_birthday": _person_birthday,
}


def solve(kind: str, toolkit: MovieToolkit, params: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """(answer, action lines ending with finish) for a question of `kind`."""
    solver = Solver(toolkit)
    answer = KINDS[kind](solver, params)
    solver.lines.append(tool_line("finish", {"answer": answer}))
    return answer, solver.lines
