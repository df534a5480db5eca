"""The movie database the Movie tools read, shaped as TMDB's API answers: movies (details,
companies, countries, credits, keywords, alternative titles, translations) and people
(details, movie credits, external ids), generated deterministically."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"


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
    vocab = json.loads((DATA / "vocabulary.json").read_text(encoding="utf-8"))
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
