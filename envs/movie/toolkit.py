"""Movie's tools over the database, answering as the original's toolkit does over TMDB: the same
fields picked from each answer, and TMDB's own answers for what it lacks (its 404 body for an
unknown id; no search results, on which the original's movie search fails with IndexError)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from coevo.envs.movie.catalogue import Catalogue, Movie, Person
from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.toolkit import Toolkit

NOT_FOUND = '{"success":false,"status_code":34,"status_message":"The resource you requested could not be found."}'
IGNORED = ("overview", "biography", "vote_average", "genres", "revenue", "budget", "release_date")
CREW_JOBS = ("Director", "Producer", "Writer")
TRANSLATED = ("NL", "CN", "US", "DE", "RU", "JP")


def clean_subgoal(result: Any) -> Any:
    """The original's `clean_observation`: the fields that drift dropped from the subgoal."""
    cleaned = copy.deepcopy(result)
    items = cleaned if isinstance(cleaned, list) else [cleaned]
    for item in items:
        if isinstance(item, dict):
            for key in IGNORED:
                item.pop(key, None)
    return cleaned


class MovieToolkit(Toolkit):
    def __init__(self, specs: Sequence[ToolSpec], catalogue: Catalogue) -> None:
        super().__init__(specs)
        self.catalogue = catalogue

    def subgoal(self, tool: str, result: Any) -> Any:
        return clean_subgoal(result)

    def _movie(self, movie_id: Any) -> Movie | None:
        try:
            return self.catalogue.movies.get(int(str(movie_id)))
        except ValueError:
            return None

    def _person(self, person_id: Any) -> Person | None:
        try:
            return self.catalogue.people.get(int(str(person_id)))
        except ValueError:
            return None

    def get_search_movie(self, movie_name: Any) -> tuple[bool, Any]:
        found = self.catalogue.search_movies(str(movie_name))
        first = found[0]  # no results: IndexError, as the original reads results[0]
        return True, [{"id": first.id, "overview": first.overview, "title": first.title}]

    def get_movie_details(self, movie_id: Any) -> tuple[bool, Any]:
        m = self._movie(movie_id)
        if m is None:
            return False, NOT_FOUND
        return True, {
            "title": m.title,
            "budget": m.budget,
            "genres": copy.deepcopy(m.genres),
            "revenue": m.revenue,
            "vote_average": m.vote_average,
            "release_date": m.release_date,
        }

    def get_movie_production_companies(self, movie_id: Any) -> tuple[bool, Any]:
        m = self._movie(movie_id)
        return (False, NOT_FOUND) if m is None else (True, {"production_companies": copy.deepcopy(m.companies)})

    def get_movie_production_countries(self, movie_id: Any) -> tuple[bool, Any]:
        m = self._movie(movie_id)
        return (False, NOT_FOUND) if m is None else (True, {"production_countries": copy.deepcopy(m.countries)})

    def get_movie_cast(self, movie_id: Any) -> tuple[bool, Any]:
        m = self._movie(movie_id)
        if m is None:
            return False, NOT_FOUND
        people = self.catalogue.people
        return True, {"cast": [{"id": p, "name": people[p].name, "character": c} for p, c in m.cast[:10]]}

    def get_movie_crew(self, movie_id: Any) -> tuple[bool, Any]:
        """Directors, producers and writers first, then others up to ten (the original's rule)."""
        m = self._movie(movie_id)
        if m is None:
            return False, NOT_FOUND
        people = self.catalogue.people
        crew = [{"id": p, "name": people[p].name, "job": j} for p, j in m.crew if j in CREW_JOBS]
        if len(crew) < 10:
            ids = [c["id"] for c in crew]
            for p, j in m.crew:
                if p not in ids:
                    crew.append({"id": p, "name": people[p].name, "job": j})
                if len(crew) == 10:
                    break
        return True, {"crew": crew}

    def get_movie_keywords(self, movie_id: Any) -> tuple[bool, Any]:
        m = self._movie(movie_id)
        return (False, NOT_FOUND) if m is None else (True, {"keywords": list(m.keywords)})

    def get_search_person(self, person_name: Any) -> tuple[bool, Any]:
        found = self.catalogue.search_people(str(person_name))
        return True, [{"id": found[0].id, "name": found[0].name}] if found else []

    def get_person_details(self, person_id: Any) -> tuple[bool, Any]:
        p = self._person(person_id)
        if p is None:
            return False, NOT_FOUND
        return True, {
            "name": p.name,
            "biography": p.biography,
            "birthday": p.birthday,
            "place_of_birth": p.place_of_birth,
        }

    def _credits(self, person_id: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        cast, crew = [], []
        for m in sorted(self.catalogue.movies.values(), key=lambda m: m.id):
            cast += [{"id": m.id, "title": m.title, "character": c} for p, c in m.cast if p == person_id]
            crew += [{"id": m.id, "title": m.title, "job": j} for p, j in m.crew if p == person_id]
        return cast, crew

    def get_person_cast(self, person_id: Any) -> tuple[bool, Any]:
        p = self._person(person_id)
        return (False, NOT_FOUND) if p is None else (True, {"cast": self._credits(p.id)[0][:10]})

    def get_person_crew(self, person_id: Any) -> tuple[bool, Any]:
        p = self._person(person_id)
        return (False, NOT_FOUND) if p is None else (True, {"crew": self._credits(p.id)[1][:10]})

    def get_person_external_ids(self, person_id: Any) -> tuple[bool, Any]:
        p = self._person(person_id)
        return (False, NOT_FOUND) if p is None else (True, dict(p.external_ids))

    def get_movie_alternative_titles(self, movie_id: Any) -> tuple[bool, Any]:
        m = self._movie(movie_id)
        return (False, NOT_FOUND) if m is None else (True, {"id": m.id, "titles": copy.deepcopy(m.titles)})

    def get_movie_translation(self, movie_id: Any) -> tuple[bool, Any]:
        """TMDB's translations of the countries the original keeps, their titles dropped."""
        m = self._movie(movie_id)
        if m is None:
            return False, NOT_FOUND
        kept = [copy.deepcopy(t) for t in m.translations if t["iso_3166_1"] in TRANSLATED]
        return True, {"id": m.id, "translations": kept}
