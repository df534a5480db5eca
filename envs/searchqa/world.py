"""A generated encyclopedia of fictional entities: the knowledge behind SearchQA's corpus.

Countries, cities, people, organizations and written works, linked by relations (born in,
founded by, studied at, married to, written by, published by, headquartered in). Every name is
invented and unique, so a question can only be answered from the corpus, never from a language
model's memory of the real world. Deterministic by seed; one passage per entity, so the number
of entities is the number of passages asked for.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

_ONSETS = ["b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "kr", "l", "m", "n", "p", "qu",
           "r", "s", "sh", "st", "t", "th", "tr", "v", "w", "z", "el", "or", "an", "is"]
_NUCLEI = ["a", "e", "i", "o", "u", "ae", "ai", "ea", "ei", "ia", "io", "ou", "y"]
_CODAS = ["", "", "n", "r", "l", "s", "th", "m", "nd", "rk", "x", "v", "st"]
_COUNTRY_SUFFIX = ["ia", "land", "ova", "stan", "mark", "ora", "esh", "avia"]
_CITY_SUFFIX = ["", "", "ford", "burg", "ville", "haven", "grad", "polis", "mouth", "by"]
_REGIONS = ["northern", "southern", "eastern", "western", "central", "coastal", "highland", "island"]
_OCCUPATIONS = ["chemist", "painter", "novelist", "engineer", "economist", "composer", "architect",
                "astronomer", "physician", "historian", "mathematician", "sculptor", "poet", "botanist",
                "diplomat", "philosopher", "geologist", "photographer", "linguist", "cartographer"]
_INDUSTRIES = ["shipping", "software", "textile", "mining", "publishing", "railway", "pharmaceutical",
               "aerospace", "brewing", "insurance", "glassware", "telegraph", "banking", "optics"]
_COMPANY_SUFFIX = ["Works", "Holdings", "Industries", "Press", "Company", "Group", "Brothers", "Trading",
                   "Dynamics", "Foundry", "Partners", "Media"]
_WORK_KINDS = ["novel", "memoir", "play", "poetry collection", "treatise", "travelogue", "biography"]
_ADJECTIVES = ["Silent", "Crimson", "Hollow", "Distant", "Golden", "Broken", "Forgotten", "Restless",
               "Pale", "Burning", "Quiet", "Endless", "Bitter", "Gentle", "Northern", "Last", "Hidden",
               "Iron", "Glass", "Winter", "Amber", "Wandering", "Sunken", "Velvet"]


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
            w.orgs[name] = Org(name, "company", rng.randint(1750, 2010), founder, rng.choice(city_names),
                               rng.choice(_INDUSTRIES))
    universities = [o for o in w.orgs.values() if o.kind == "university"]
    companies = [o.name for o in w.orgs.values() if o.kind == "company"]
    for person in w.people.values():
        person.alma_mater = rng.choice(universities).name

    for _ in range(n_works):
        title = names.draw(lambda r: f"The {r.choice(_ADJECTIVES)} {_word(r, r.randint(1, 2))}"
                           + (f" of {_word(r, 2)}" if r.random() < 0.5 else ""))
        w.works[title] = Work(title, rng.choice(_WORK_KINDS), rng.randint(1750, 2020), rng.choice(people),
                              rng.choice(companies))
    return w


def _university_name(city: str, r: random.Random) -> str:
    return f"{r.choice(['University', 'Institute', 'College'])} of {city}" if r.random() < 0.5 else f"{_word(r, 2)} University"


def _a(word: str) -> str:
    return ("an " if word[0].lower() in "aeiou" else "a ") + word


def passages_of(w: World) -> list[tuple[str, str]]:
    """(title, text) for every entity; the sentence shapes are what the expert reads."""
    out: list[tuple[str, str]] = []
    for country in w.countries.values():
        out.append((country.name, f"{country.name} is a country in the {country.region} region. Its capital is "
                                  f"{country.capital}. {country.name} has a population of about "
                                  f"{country.population_m} million."))
    for city in w.cities.values():
        out.append((city.name, f"{city.name} is a city in {city.country}. It was founded in {city.founded} and has "
                               f"about {city.population:,} inhabitants."))
    for p in w.people.values():
        city = w.cities[p.birth_city]
        text = (f"{p.name} (born {p.born}) is {_a(p.occupation)}. {p.name} was born in {city.name}, {city.country}. "
                f"{p.name} studied at {p.alma_mater}.")
        if p.spouse:
            text += f" {p.name} is married to {p.spouse}."
        out.append((p.name, text))
    for o in w.orgs.values():
        city = w.cities[o.city]
        if o.kind == "university":
            text = f"{o.name} is a university in {city.name}, {city.country}. It was founded in {o.founded} by {o.founder}."
        else:
            text = (f"{o.name} is {_a(o.industry)} company founded in {o.founded} by {o.founder}. "
                    f"It is headquartered in {city.name}, {city.country}.")
        out.append((o.name, text))
    for b in w.works.values():
        out.append((b.title, f"{b.title} is a {b.year} {b.kind} by {b.author}. It was published by {b.publisher}."))
    return out
