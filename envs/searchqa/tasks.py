"""The task source: a generated world, its two-hop questions, and the official question files.

The world is an encyclopedia of fictional entities, the knowledge behind the corpus: countries,
cities, people, organizations and written works, linked by relations (born in, founded by,
studied at, married to, written by, published by, headquartered in). Every name is invented and
unique, so a question can only be answered from the corpus, never from a language model's
memory of the real world. Deterministic by seed; one passage per entity, so the number of
entities is the number of passages asked for.

Questions are Bamboogle-style: each template names an anchor entity and composes two relations,
the first from the anchor to a bridge entity that the question never names, the second from the
bridge to the answer. Answering needs both passages; the question alone gives neither. Each hop
also carries the pattern that reads its relation off the passage text, which is what the expert
uses (envs/searchqa/expert.py): it must actually retrieve both passages to answer.

`read_question_file` loads the benchmarks' own question files (Bamboogle, FlashRAG, Search-R1).
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

_ONSETS = [
    "b",
    "br",
    "c",
    "ch",
    "d",
    "dr",
    "f",
    "g",
    "gr",
    "h",
    "j",
    "k",
    "kr",
    "l",
    "m",
    "n",
    "p",
    "qu",
    "r",
    "s",
    "sh",
    "st",
    "t",
    "th",
    "tr",
    "v",
    "w",
    "z",
    "el",
    "or",
    "an",
    "is",
]
_NUCLEI = ["a", "e", "i", "o", "u", "ae", "ai", "ea", "ei", "ia", "io", "ou", "y"]
_CODAS = ["", "", "n", "r", "l", "s", "th", "m", "nd", "rk", "x", "v", "st"]
_COUNTRY_SUFFIX = ["ia", "land", "ova", "stan", "mark", "ora", "esh", "avia"]
_CITY_SUFFIX = ["", "", "ford", "burg", "ville", "haven", "grad", "polis", "mouth", "by"]
_REGIONS = ["northern", "southern", "eastern", "western", "central", "coastal", "highland", "island"]
_OCCUPATIONS = [
    "chemist",
    "painter",
    "novelist",
    "engineer",
    "economist",
    "composer",
    "architect",
    "astronomer",
    "physician",
    "historian",
    "mathematician",
    "sculptor",
    "poet",
    "botanist",
    "diplomat",
    "philosopher",
    "geologist",
    "photographer",
    "linguist",
    "cartographer",
]
_INDUSTRIES = [
    "shipping",
    "software",
    "textile",
    "mining",
    "publishing",
    "railway",
    "pharmaceutical",
    "aerospace",
    "brewing",
    "insurance",
    "glassware",
    "telegraph",
    "banking",
    "optics",
]
_COMPANY_SUFFIX = [
    "Works",
    "Holdings",
    "Industries",
    "Press",
    "Company",
    "Group",
    "Brothers",
    "Trading",
    "Dynamics",
    "Foundry",
    "Partners",
    "Media",
]
_WORK_KINDS = ["novel", "memoir", "play", "poetry collection", "treatise", "travelogue", "biography"]
_ADJECTIVES = [
    "Silent",
    "Crimson",
    "Hollow",
    "Distant",
    "Golden",
    "Broken",
    "Forgotten",
    "Restless",
    "Pale",
    "Burning",
    "Quiet",
    "Endless",
    "Bitter",
    "Gentle",
    "Northern",
    "Last",
    "Hidden",
    "Iron",
    "Glass",
    "Winter",
    "Amber",
    "Wandering",
    "Sunken",
    "Velvet",
]


def _word(rng: random.Random, syllables: int) -> str:
    parts = [rng.choice(_ONSETS) + rng.choice(_NUCLEI) + rng.choice(_CODAS) for _ in range(syllables)]
    return "".join(parts).capitalize()


class _Unique:
    """Draws names until one is new; all entity names share one namespace."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def draw(self, make: Callable[[random.Random], str]) -> str:
        while True:
            name = make(self.rng)
            if name.lower() not in self.used:
                self.used.add(name.lower())
                return name


@dataclass
class Country:
    name: str
    region: str
    population_m: int
    capital: str = ""


@dataclass
class City:
    name: str
    country: str
    founded: int
    population: int


@dataclass
class Person:
    name: str
    born: int
    birth_city: str
    occupation: str
    alma_mater: str = ""
    spouse: str = ""


@dataclass
class Org:
    name: str
    kind: str  # "company" or "university"
    founded: int
    founder: str
    city: str
    industry: str = ""


@dataclass
class Work:
    title: str
    kind: str
    year: int
    author: str
    publisher: str


@dataclass
class World:
    countries: dict[str, Country] = field(default_factory=dict)
    cities: dict[str, City] = field(default_factory=dict)
    people: dict[str, Person] = field(default_factory=dict)
    orgs: dict[str, Org] = field(default_factory=dict)
    works: dict[str, Work] = field(default_factory=dict)

    def size(self) -> int:
        return sum(len(d) for d in (self.countries, self.cities, self.people, self.orgs, self.works))


def generate_world(passages: int, seed: int = 0) -> World:
    """A world with exactly `passages` entities (one passage each); at least 200."""
    if passages < 200:
        raise ValueError("the encyclopedia needs at least 200 passages")
    rng = random.Random(f"searchqa-world-{seed}")
    names = _Unique(rng)
    n_countries = max(12, passages // 2500)
    n_cities = max(60, passages // 12)
    n_orgs = passages // 4
    n_universities = max(10, n_orgs // 10)
    n_works = passages // 4
    n_people = passages - n_countries - n_cities - n_orgs - n_works
    w = World()

    for _ in range(n_countries):
        name = names.draw(lambda r: _word(r, r.randint(1, 2)) + r.choice(_COUNTRY_SUFFIX))
        w.countries[name] = Country(name, rng.choice(_REGIONS), rng.randint(1, 90))
    country_names = list(w.countries)
    for i in range(n_cities):
        name = names.draw(lambda r: _word(r, r.randint(1, 2)) + r.choice(_CITY_SUFFIX))
        country = country_names[i % n_countries]  # every country gets cities
        w.cities[name] = City(name, country, rng.randint(800, 1900), rng.randint(5, 3000) * 1000)
        if not w.countries[country].capital:
            w.countries[country].capital = name
    city_names = list(w.cities)

    given = [_word(rng, rng.randint(1, 2)) for _ in range(max(300, n_people // 40))]
    family = [_word(rng, 2) for _ in range(max(600, n_people // 8))]
    for _ in range(n_people):
        name = names.draw(lambda r: f"{r.choice(given)} {r.choice(family)}")
        w.people[name] = Person(name, rng.randint(1700, 1990), rng.choice(city_names), rng.choice(_OCCUPATIONS))
    people = list(w.people)
    rng.shuffle(people)
    for a, b in zip(people[0 : len(people) // 2 : 2], people[1 : len(people) // 2 : 2]):  # half are married
        w.people[a].spouse, w.people[b].spouse = b, a

    for i in range(n_orgs):
        founder = rng.choice(people)
        if i < n_universities:
            city = rng.choice(city_names)
            name = names.draw(partial(_university_name, city))
            w.orgs[name] = Org(name, "university", rng.randint(1100, 1950), founder, city)
        else:
            name = names.draw(lambda r: f"{r.choice(family)} {r.choice(_COMPANY_SUFFIX)}")
            w.orgs[name] = Org(
                name, "company", rng.randint(1750, 2010), founder, rng.choice(city_names), rng.choice(_INDUSTRIES)
            )
    universities = [o for o in w.orgs.values() if o.kind == "university"]
    companies = [o.name for o in w.orgs.values() if o.kind == "company"]
    for person in w.people.values():
        person.alma_mater = rng.choice(universities).name

    for _ in range(n_works):
        title = names.draw(
            lambda r: (
                f"The {r.choice(_ADJECTIVES)} {_word(r, r.randint(1, 2))}"
                + (f" of {_word(r, 2)}" if r.random() < 0.5 else "")
            )
        )
        w.works[title] = Work(
            title, rng.choice(_WORK_KINDS), rng.randint(1750, 2020), rng.choice(people), rng.choice(companies)
        )
    return w


def _university_name(city: str, r: random.Random) -> str:
    return (
        f"{r.choice(['University', 'Institute', 'College'])} of {city}"
        if r.random() < 0.5
        else f"{_word(r, 2)} University"
    )


def _a(word: str) -> str:
    return ("an " if word[0].lower() in "aeiou" else "a ") + word


def passages_of(w: World) -> list[tuple[str, str]]:
    """(title, text) for every entity; the sentence shapes are what the expert reads."""
    out: list[tuple[str, str]] = []
    for country in w.countries.values():
        out.append(
            (
                country.name,
                f"{country.name} is a country in the {country.region} region. Its capital is "
                f"{country.capital}. {country.name} has a population of about "
                f"{country.population_m} million.",
            )
        )
    for city in w.cities.values():
        out.append(
            (
                city.name,
                f"{city.name} is a city in {city.country}. It was founded in {city.founded} and has "
                f"about {city.population:,} inhabitants.",
            )
        )
    for p in w.people.values():
        city = w.cities[p.birth_city]
        text = (
            f"{p.name} (born {p.born}) is {_a(p.occupation)}. {p.name} was born in {city.name}, {city.country}. "
            f"{p.name} studied at {p.alma_mater}."
        )
        if p.spouse:
            text += f" {p.name} is married to {p.spouse}."
        out.append((p.name, text))
    for o in w.orgs.values():
        city = w.cities[o.city]
        if o.kind == "university":
            text = f"{o.name} is a university in {city.name}, {city.country}. It was founded in {o.founded} by {o.founder}."
        else:
            text = (
                f"{o.name} is {_a(o.industry)} company founded in {o.founded} by {o.founder}. "
                f"It is headquartered in {city.name}, {city.country}."
            )
        out.append((o.name, text))
    for b in w.works.values():
        out.append((b.title, f"{b.title} is a {b.year} {b.kind} by {b.author}. It was published by {b.publisher}."))
    return out


@dataclass(frozen=True)
class Template:
    name: str
    question: str  # with {anchor}
    hop1: str  # regex with group "x" that reads the bridge off the anchor's passage
    hop2: str  # regex with group "x" that reads the answer off the bridge's passage


TEMPLATES = {
    t.name: t
    for t in [
        Template(
            "founder_birth_city",
            "In which city was the founder of {anchor} born?",
            r"founded in \d+ by (?P<x>[^.]+)\.",
            r"was born in (?P<x>[^,]+), ",
        ),
        Template(
            "author_birth_year",
            "In what year was the author of {anchor} born?",
            r"\d+ [a-z ]+ by (?P<x>[^.]+)\. It was published",
            r"\(born (?P<x>\d+)\)",
        ),
        Template(
            "birth_country_capital",
            "What is the capital of the country where {anchor} was born?",
            r"was born in [^,]+, (?P<x>[^.]+)\.",
            r"Its capital is (?P<x>[^.]+)\.",
        ),
        Template(
            "alma_mater_founder",
            "Who founded the university where {anchor} studied?",
            r"studied at (?P<x>[^.]+)\.",
            r"founded in \d+ by (?P<x>[^.]+)\.",
        ),
        Template(
            "publisher_country",
            "In which country is the company that published {anchor} headquartered?",
            r"published by (?P<x>[^.]+)\.",
            r"headquartered in [^,]+, (?P<x>[^.]+)\.",
        ),
        Template(
            "founder_spouse",
            "Who is the spouse of the founder of {anchor}?",
            r"founded in \d+ by (?P<x>[^.]+)\.",
            r"is married to (?P<x>[^.]+)\.",
        ),
    ]
}


@dataclass(frozen=True)
class Question:
    qid: str
    question: str
    answers: list[str]
    template: str | None = None
    anchor: str | None = None
    bridge: str | None = None
    support: list[str] | None = None  # titles of the passages that answer it
    source: str | None = None  # a user file's data_source (Search-R1's parquet files: nq, hotpotqa, ...)
    split: str | None = None  # the split a user file gives the question; not stored in to_json

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None and k != "split"}


def _compose(w: World, template: str, anchor: str) -> tuple[str, str] | None:
    """(bridge, answer) for a template applied to an anchor, or None where the chain breaks."""
    if template in ("founder_birth_city", "founder_spouse"):
        org = w.orgs.get(anchor)
        if org is None or org.kind != "company":
            return None
        founder = w.people[org.founder]
        answer = founder.birth_city if template == "founder_birth_city" else founder.spouse
        return (founder.name, answer) if answer else None
    if template == "author_birth_year":
        work = w.works.get(anchor)
        return (work.author, str(w.people[work.author].born)) if work else None
    if template == "birth_country_capital":
        person = w.people.get(anchor)
        if person is None:
            return None
        country = w.cities[person.birth_city].country
        return country, w.countries[country].capital
    if template == "alma_mater_founder":
        person = w.people.get(anchor)
        return (person.alma_mater, w.orgs[person.alma_mater].founder) if person else None
    if template == "publisher_country":
        work = w.works.get(anchor)
        if work is None:
            return None
        return work.publisher, w.cities[w.orgs[work.publisher].city].country
    raise KeyError(template)


_ANCHORS = {
    "founder_birth_city": "companies",
    "founder_spouse": "companies",
    "author_birth_year": "works",
    "birth_country_capital": "people",
    "alma_mater_founder": "people",
    "publisher_country": "works",
}


def generate_questions(w: World, count: int, seed: int) -> list[Question]:
    """`count` distinct questions, templates in turn, anchors drawn without repeats."""
    rng = random.Random(f"searchqa-questions-{seed}")
    pools = {
        "companies": sorted(o.name for o in w.orgs.values() if o.kind == "company"),
        "works": sorted(w.works),
        "people": sorted(w.people),
    }
    for pool in pools.values():
        rng.shuffle(pool)
    cursor = dict.fromkeys(pools, 0)
    names = list(TEMPLATES)
    out: list[Question] = []
    attempts = 0
    while len(out) < count:
        attempts += 1
        if attempts > count * 20:
            raise ValueError(f"the world is too small for {count} questions")
        template = names[len(out) % len(names)] if attempts % 7 else rng.choice(names)
        pool_name = _ANCHORS[template]
        pool = pools[pool_name]
        anchor = pool[cursor[pool_name] % len(pool)]
        cursor[pool_name] += 1
        composed = _compose(w, template, anchor)
        if composed is None:
            continue
        bridge, answer = composed
        t = TEMPLATES[template]
        out.append(
            Question(
                f"q{len(out)}", t.question.format(anchor=anchor), [answer], template, anchor, bridge, [anchor, bridge]
            )
        )
    return out


def _rows(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".csv":
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise ValueError(f"{path}: reading parquet needs pyarrow: pip install 'coevo[parquet]'") from None
        return pq.read_table(path).to_pylist()
    return json.loads(path.read_text())


def _golds(row: dict[str, Any]) -> list[str] | None:
    """Gold answers: FlashRAG's `golden_answers`, Search-R1's `reward_model.ground_truth.target`,
    or Bamboogle's `Answer`."""
    golds = row.get("golden_answers")
    if golds is None:
        golds = ((row.get("reward_model") or {}).get("ground_truth") or {}).get("target")
    if golds is None:
        golds = row.get("Answer") if "Answer" in row else row.get("answer")
    if golds is None:
        return None
    return [str(g) for g in golds] if isinstance(golds, (list, tuple)) else [str(golds)]


def read_question_file(path: Path) -> list[Question]:
    """Questions with gold answers, as QA benchmarks ship them.

    Bamboogle's CSV (`Question`, `Answer`), FlashRAG's JSONL (`id`, `question`,
    `golden_answers`) and Search-R1's parquet files (the same columns, plus `data_source` and
    `extra_info.split`); JSON lists and JSONL of any of these shapes too. The split is the row's
    `extra_info.split` or `split` when it has one, else test; `data_source` becomes the task type.
    """
    rows = _rows(path)
    if not isinstance(rows, list):
        raise ValueError(f"{path}: expected a list of questions")
    out = []
    for i, row in enumerate(rows):
        question = row.get("Question") or row.get("question")
        answers = _golds(row)
        if not question or not answers:
            raise ValueError(
                f"{path}: row {i} lacks a question (Question/question) or its gold answers "
                "(golden_answers, reward_model.ground_truth.target or Answer)"
            )
        split = (row.get("extra_info") or {}).get("split") or row.get("split") or "test"
        source = row.get("data_source")
        out.append(
            Question(f"user{i}", str(question), answers, source=str(source) if source else None, split=str(split))
        )
    return out
