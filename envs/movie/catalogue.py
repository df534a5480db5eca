"""The movie database the Movie tools read, shaped as TMDB's API answers: movies (details,
companies, countries, credits, keywords, alternative titles, translations) and people
(details, movie credits, external ids), generated deterministically."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
#: Ids of films and people a loaded task file adds (the generated ones stay below).
_ADDED_MOVIES = 100_000
_ADDED_PEOPLE = 200_000


@cache
def vocabulary() -> dict[str, Any]:
    vocab: dict[str, Any] = json.loads((DATA / "vocabulary.json").read_text(encoding="utf-8"))
    return vocab


@dataclass
class Person:
    id: int
    name: str
    birthday: str
    place_of_birth: str
    biography: str
    external_ids: dict[str, Any]


@dataclass
class Movie:
    id: int
    title: str
    overview: str
    release_date: str
    budget: int
    revenue: int
    vote_average: float
    genres: list[dict[str, Any]]
    companies: list[dict[str, Any]]
    countries: list[dict[str, Any]]
    keywords: list[str]
    #: (person id, character), in billing order
    cast: list[tuple[int, str]]
    #: (person id, job)
    crew: list[tuple[int, str]]
    titles: list[dict[str, Any]]
    translations: list[dict[str, Any]]


@dataclass
class Catalogue:
    movies: dict[int, Movie] = field(default_factory=dict)
    people: dict[int, Person] = field(default_factory=dict)
    #: (movie or person id, attribute) a loaded task's answer fixed: later rules leave it alone.
    fixed: set[tuple[int, str]] = field(default_factory=set)

    def movie_named(self, title: str) -> Movie | None:
        return next((m for m in self.movies.values() if m.title.lower() == title.strip().lower()), None)

    def person_named(self, name: str) -> Person | None:
        return next((p for p in self.people.values() if p.name.lower() == name.strip().lower()), None)

    def add_person(self, name: str) -> Person:
        """A person a loaded task names (or a made-up one it implies), with generated details."""
        rng = random.Random(f"movie-person|{name}")
        pid = _ADDED_PEOPLE + len([p for p in self.people if p >= _ADDED_PEOPLE])
        vocab = vocabulary()
        person = Person(
            pid,
            name,
            f"{rng.randint(1940, 2000)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            rng.choice(vocab["places"]),
            f"{name} is a film artist.",
            {
                "imdb_id": f"nm{rng.randrange(10**6, 10**7)}",
                "facebook_id": None,
                "instagram_id": None,
                "twitter_id": None,
            },
        )
        self.people[pid] = person
        return person

    def new_name(self, seed: str) -> str:
        """A made-up name no one in the database has (for a person a task implies, unnamed)."""
        vocab = vocabulary()
        rng = random.Random(f"movie-name|{seed}")
        while True:
            name = f"{rng.choice(vocab['first_names'])} {rng.choice(vocab['last_names'])} {rng.choice(vocab['last_names'])}"
            if self.person_named(name) is None:
                return name

    def add_movie(self, title: str) -> Movie:
        """A film a loaded task names, with generated attributes and a made-up crew of its own
        (so no generated film's answers change)."""
        vocab = vocabulary()
        rng = random.Random(f"movie-film|{title}")
        mid = _ADDED_MOVIES + len([m for m in self.movies if m >= _ADDED_MOVIES])
        crew = [
            (self.add_person(self.new_name(f"{title}|{job}")).id, job) for job in ("Director", "Producer", "Writer")
        ]
        languages = rng.sample(vocab["translations"], 2)
        movie = Movie(
            mid,
            title,
            f"A story about {rng.choice(vocab['keywords'])}.",
            f"{rng.randint(1975, 2023)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            rng.randrange(1, 200) * 1_000_000,
            rng.randrange(1, 900) * 1_000_000,
            round(rng.uniform(4.5, 8.9), 3),
            [{"id": g, "name": n} for g, n in rng.sample(vocab["genres"], 2)],
            [
                {"id": i, "logo_path": None, "name": n, "origin_country": c}
                for i, n, c in rng.sample(vocab["companies"], 1)
            ],
            [{"iso_3166_1": c, "name": n} for c, n in rng.sample(vocab["countries"], 1)],
            rng.sample(vocab["keywords"], 2),
            [],
            crew,
            [{"iso_3166_1": c, "title": f"{title} ({english})", "type": ""} for c, _, _, english in languages],
            [
                {
                    "iso_3166_1": c,
                    "iso_639_1": lang,
                    "name": native,
                    "english_name": english,
                    "data": {"homepage": "", "overview": f"{title} ({english}).", "runtime": 0, "tagline": ""},
                }
                for c, lang, native, english in languages
            ],
        )
        self.movies[mid] = movie
        return movie

    def search_movies(self, query: str) -> list[Movie]:
        """Title matches, exact first, then titles containing the query (case-insensitive)."""
        q = query.strip().lower()
        if not q:
            return []
        found = [m for m in self.movies.values() if q in m.title.lower()]
        return sorted(found, key=lambda m: (m.title.lower() != q, m.id))

    def search_people(self, query: str) -> list[Person]:
        q = query.strip().lower()
        if not q:
            return []
        found = [p for p in self.people.values() if q in p.name.lower()]
        return sorted(found, key=lambda p: (p.name.lower() != q, p.id))


def generate(seed: int, movies: int = 80, people: int = 120) -> Catalogue:
    vocab = vocabulary()
    rng = random.Random(f"movie|{seed}")
    cat = Catalogue()
    names: set[str] = set()
    while len(cat.people) < people:
        name = f"{rng.choice(vocab['first_names'])} {rng.choice(vocab['last_names'])}"
        if name in names:
            continue
        names.add(name)
        pid = 10_000 + len(cat.people) * 7 + rng.randrange(7)
        handle = name.lower().replace(" ", "")
        cat.people[pid] = Person(
            pid,
            name,
            f"{rng.randint(1940, 2000)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            rng.choice(vocab["places"]),
            f"{name} is a film artist.",
            {
                "imdb_id": f"nm{rng.randrange(10**6, 10**7)}",
                "facebook_id": handle if rng.random() < 0.5 else None,
                "instagram_id": handle if rng.random() < 0.6 else None,
                "twitter_id": handle if rng.random() < 0.7 else None,
            },
        )
    ids = sorted(cat.people)
    titles: set[str] = set()
    while len(cat.movies) < movies:
        title = f"{rng.choice(vocab['title_first'])} {rng.choice(vocab['title_second'])}"
        if title in titles:
            continue
        titles.add(title)
        mid = 500 + len(cat.movies) * 11 + rng.randrange(11)
        team = rng.sample(ids, 8)
        characters = rng.sample(vocab["characters"], 5)
        genres = [{"id": g, "name": n} for g, n in rng.sample(vocab["genres"], rng.randint(1, 3))]
        companies = [
            {"id": i, "logo_path": None, "name": n, "origin_country": c}
            for i, n, c in rng.sample(vocab["companies"], rng.randint(1, 2))
        ]
        countries = [{"iso_3166_1": c, "name": n} for c, n in rng.sample(vocab["countries"], rng.randint(1, 2))]
        translations = [
            {
                "iso_3166_1": c,
                "iso_639_1": lang,
                "name": native,
                "english_name": english,
                "data": {"homepage": "", "overview": f"{title} ({english}).", "runtime": 0, "tagline": ""},
            }
            for c, lang, native, english in rng.sample(vocab["translations"], rng.randint(1, 3))
        ]
        cat.movies[mid] = Movie(
            mid,
            title,
            f"A story about {rng.choice(vocab['keywords'])}.",
            f"{rng.randint(1975, 2023)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
            rng.randrange(1, 200) * 1_000_000,
            rng.randrange(1, 900) * 1_000_000,
            round(rng.uniform(4.5, 8.9), 3),
            genres,
            companies,
            countries,
            rng.sample(vocab["keywords"], rng.randint(1, 4)),
            list(zip(team[:5], characters)),
            [(team[5], "Director"), (team[6], "Producer"), (team[7], "Writer")],
            [
                {"iso_3166_1": t["iso_3166_1"], "title": f"{title} ({t['english_name']})", "type": ""}
                for t in translations
            ],
            translations,
        )
    return cat
